// Package keys is the one model of key material and key schedules shared by
// TCP-MD5 (md5auth), SRv6 HMAC (srv6policy), the configuration and the
// shadow checker.
//
// Secret is key material that never prints, compares in constant time and
// can be wiped. Schedule answers "which key is active at time t" for a
// keychain, with an optional pin (a key the caller decided to use
// regardless of time). The package is pure Go and imports nothing of
// authbgpd, so every other package may use it.
package keys
