// Package fib puts the best paths of GoBGP's RIB into the kernel's routing
// tables, and keeps them there: the forwarding side of a router.
//
// It is reconciled like the keys (package peers): one writer goroutine runs
// passes; GoBGP's best-path events, the kernel's route notifications, a
// reload and a timer only record their input and ask for a pass. A pass
// computes the desired routes from the recorded best paths (pure,
// desired.go), observes what it must (the next hops the kernel resolves,
// and on a full look every route of ours in the kernel), plans the writes
// as a value (pure, plan.go), and only then writes (one batch through the
// Kernel). Outcomes are recorded in one place and published as a Status
// snapshot for readers (/status, metrics).
//
// Routes of ours carry the route protocol 186 (`proto bgp`, RTPROT_BGP, as
// FRR and BIRD use) and the metric 20, so an operator's static route of a
// lower metric wins, and what is ours is always known: at start the routes
// of an earlier run are taken over (kept where still wanted, removed where
// not); on a stop they are removed.
//
// The rtnetlink codec of these routes is pure and portable (codec.go,
// fuzzed); the socket that carries it is in kernel_linux.go.
package fib
