// Package md5auth is the TCP-MD5 codec (RFC 2385), pure and portable: the
// digest and its verification (digest.go: no allocation per segment, with
// prepared pseudo-headers for the shadow's hot path), TCP option parsing
// (options.go, tcpopt's rules) and Key, a key with its scope, an address or
// prefix and an ifindex, and its validation (key.go). Putting keys on
// sockets is package tcpsock; the TCP-AO codec is package tcpao.
//
// Secrets are held in keys.Secret, which never formats its contents.
package md5auth
