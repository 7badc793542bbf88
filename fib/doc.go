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
// The routes' values, their rtnetlink codec and the kernel's sockets are
// package kroute's. Files: reconciler.go (the Reconciler: inputs, the
// loop, Start and Stop), pass.go (a pass: take the inputs, observe, plan
// chunk by chunk, write, record the outcomes, publish), paths.go (the
// recorded best paths), where.go (which table and link a neighbor's
// routes belong to, from the peers' snapshot and index), desired.go and
// plan.go (pure), observed.go (the kernel's routes of ours as known),
// status.go (metrics).
package fib
