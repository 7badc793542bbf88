package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/config"
)

// fakeReloader is a Source that reloads: it records the request and
// answers with preview.
type fakeReloader struct {
	*fakeSource
	got     []ReloadRequest
	preview config.Preview
}

func (f *fakeReloader) Reload(_ context.Context, req ReloadRequest) config.Preview {
	f.got = append(f.got, req)
	return f.preview
}

func reloadReq(remote, ctype, body string) *http.Request {
	r := httptest.NewRequest("POST", ReloadPath, strings.NewReader(body))
	r.RemoteAddr = remote
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	return r
}

func TestReload(t *testing.T) {
	ok := config.Preview{File: "a.toml", Applied: true, Added: []string{"192.0.2.2"}}
	refused := config.Preview{File: "a.toml", Refused: []config.Refusal{{File: "a.toml", Line: 3, Key: "global.asn", Message: "a.toml:3: global.asn: 1 -> 2"}}}
	cases := []struct {
		name           string
		allowRemote    bool
		remote, ctype  string
		body           string
		preview        config.Preview
		code           int
		reloaded       bool
		wantInResponse string
	}{
		{"loopback v4", false, "127.0.0.1:4000", "application/json", "", ok, 200, true, `"192.0.2.2"`},
		{"loopback v6", false, "[::1]:4000", "application/json", `{}`, ok, 200, true, `"applied": true`},
		{"refused", false, "127.0.0.1:4000", "application/json", `{}`, refused, 422, true, `"global.asn"`},
		{"dry run of a file", false, "127.0.0.1:4000", "application/json; charset=utf-8", `{"dry_run":true,"file":"/etc/x.toml"}`, ok, 200, true, `"a.toml"`},
		{"remote", false, "192.0.2.9:4000", "application/json", `{}`, ok, 403, false, "loopback"},
		{"remote allowed", true, "192.0.2.9:4000", "application/json", `{}`, ok, 200, true, ""},
		{"form post", false, "127.0.0.1:4000", "application/x-www-form-urlencoded", "", ok, 415, false, ""},
		{"no type", false, "127.0.0.1:4000", "", "", ok, 415, false, ""},
		{"bad json", false, "127.0.0.1:4000", "application/json", `{"dry_run":`, ok, 400, false, ""},
		{"file without dry run", false, "127.0.0.1:4000", "application/json", `{"file":"/x"}`, ok, 400, false, "dry_run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeReloader{fakeSource: designSource(), preview: tc.preview}
			s := New("127.0.0.1:0", src, nil, nil)
			s.AllowRemoteReload(tc.allowRemote)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, reloadReq(tc.remote, tc.ctype, tc.body))
			if rec.Code != tc.code {
				t.Fatalf("code %d, want %d: %s", rec.Code, tc.code, rec.Body)
			}
			if (len(src.got) > 0) != tc.reloaded {
				t.Fatalf("reloaded = %v, want %v", len(src.got) > 0, tc.reloaded)
			}
			if !strings.Contains(rec.Body.String(), tc.wantInResponse) {
				t.Errorf("response %q lacks %q", rec.Body, tc.wantInResponse)
			}
			if tc.code == 200 || tc.code == 422 {
				var p config.Preview
				if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
					t.Fatalf("response is not a preview: %v", err)
				}
			}
		})
	}
	// GET is 405; a source that cannot reload has no such path.
	s := New("127.0.0.1:0", &fakeReloader{fakeSource: designSource()}, nil, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", ReloadPath, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET %s: %d, want 405", ReloadPath, rec.Code)
	}
	s = New("127.0.0.1:0", designSource(), nil, nil)
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, reloadReq("127.0.0.1:1", "application/json", ""))
	if rec.Code != http.StatusNotFound {
		t.Errorf("POST %s without a Reloader: %d, want 404", ReloadPath, rec.Code)
	}
}
