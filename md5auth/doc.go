// Package md5auth implements TCP-MD5 signatures (RFC 2385) and puts TCP-MD5
// keys on sockets of this process.
//
// The pure part (digest, verification, TCP option parsing, key validation)
// is portable. Installing keys and discovering sockets that other code in the
// process owns (GoBGP's listeners and connections) live in *_linux.go files;
// on other systems those functions return ErrNotSupported. ProcessSockets
// bundles the key operations on this process's BGP sockets that the peers
// manager needs; package md5authtest makes the kernel refuse keys, for
// fail-closed tests.
//
// Secrets are held in the Secret type, which never formats its contents.
package md5auth
