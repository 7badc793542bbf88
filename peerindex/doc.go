// Package peerindex is one loaded config's peers, indexed once per load
// and shared by the subsystems that ask about them (peers, the shadow
// checker, dropwatch): who owns an address (Owners: the interface, VRF and
// range rules, written once), each peer's keys with their TCP-AO
// algorithms parsed once (TCP-MD5 passwords and keychains, TCP-AO master
// key tuples), and the peers by ID. Snapshot is what the peers manager
// publishes of each peer's key in use and each session, for the shadow
// checker to read.
//
// Pure and portable: no sockets, no GoBGP. Imports config, keys and tcpao.
package peerindex
