package redact

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// credsType is a message type GoBGP's API does not have, built at run
// time, with the shapes the walk must handle besides GoBGP's: a repeated
// secret field, a map with a secret-named entry, and a repeated secret
// bytes field.
//
//	message Creds {
//	  repeated string secrets = 1;
//	  map<string, string> labels = 2;
//	  repeated bytes passwords = 3;
//	  string name = 4;
//	}
func credsType(t *testing.T) protoreflect.MessageType {
	t.Helper()
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	str, byt, msg := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(), descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	fd := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("redact_test_creds.proto"),
		Package: proto.String("redacttest"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Creds"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("secrets"), Number: proto.Int32(1), Label: rep, Type: str, JsonName: proto.String("secrets")},
				{Name: proto.String("labels"), Number: proto.Int32(2), Label: rep, Type: msg, TypeName: proto.String(".redacttest.Creds.LabelsEntry"), JsonName: proto.String("labels")},
				{Name: proto.String("passwords"), Number: proto.Int32(3), Label: rep, Type: byt, JsonName: proto.String("passwords")},
				{Name: proto.String("name"), Number: proto.Int32(4), Label: opt, Type: str, JsonName: proto.String("name")},
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("LabelsEntry"),
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: proto.String("key"), Number: proto.Int32(1), Label: opt, Type: str, JsonName: proto.String("key")},
					{Name: proto.String("value"), Number: proto.Int32(2), Label: opt, Type: str, JsonName: proto.String("value")},
				},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
		}},
	}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewMessageType(f.Messages().ByName("Creds"))
}

// TestRedactListsAndMaps: repeated secret fields (strings and bytes) and
// map entries keyed by a secret name are redacted; other entries and
// fields are kept; the original is not modified.
func TestRedactListsAndMaps(t *testing.T) {
	const pw1, pw2, pw3 = "l1st-secret-1", "m4p-secret-2", "byt3s-secret-3"
	mt := credsType(t)
	m := mt.New()
	fields := mt.Descriptor().Fields()
	l := m.Mutable(fields.ByName("secrets")).List()
	l.Append(protoreflect.ValueOfString(pw1))
	l.Append(protoreflect.ValueOfString(""))
	mp := m.Mutable(fields.ByName("labels")).Map()
	mp.Set(protoreflect.ValueOfString("password").MapKey(), protoreflect.ValueOfString(pw2))
	mp.Set(protoreflect.ValueOfString("site").MapKey(), protoreflect.ValueOfString("lab-1"))
	m.Mutable(fields.ByName("passwords")).List().Append(protoreflect.ValueOfBytes([]byte(pw3)))
	m.Set(fields.ByName("name"), protoreflect.ValueOfString("creds"))
	orig := m.Interface()

	if s, err := Secrets(orig); err != nil || len(s) != 3 {
		t.Fatalf("Secrets found %d secrets (err %v), want 3", len(s), err)
	}
	got := Proto(orig).ProtoReflect()
	gl, gm := got.Get(fields.ByName("secrets")).List(), got.Get(fields.ByName("labels")).Map()
	if v := gl.Get(0).String(); v != Placeholder {
		t.Errorf("repeated secret string: %d bytes, not the placeholder", len(v))
	}
	if v := gl.Get(1).String(); v != "" {
		t.Errorf("empty repeated secret became %q", v)
	}
	if v := gm.Get(protoreflect.ValueOfString("password").MapKey()).String(); v != Placeholder {
		t.Errorf("map entry \"password\": %d bytes, not the placeholder", len(v))
	}
	if v := gm.Get(protoreflect.ValueOfString("site").MapKey()).String(); v != "lab-1" {
		t.Errorf("map entry \"site\" became %q", v)
	}
	if v := got.Get(fields.ByName("passwords")).List().Get(0).Bytes(); string(v) != Placeholder {
		t.Errorf("repeated secret bytes: %d bytes, not the placeholder", len(v))
	}
	if v := got.Get(fields.ByName("name")).String(); v != "creds" {
		t.Errorf("name became %q", v)
	}
	ob, err := protojson.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ob), pw1) || !strings.Contains(string(ob), pw2) {
		t.Error("Proto modified its argument")
	}
}
