package table

// ApplyPeerPolicy is ApplyPolicy for a neighbor's own assignment (id: the
// neighbor's ID) evaluated after the global RIB's (the server's
// peerPolicy): a neighbor with no assignment of its own in direction dir
// (one the server did not add, or whose direction lost its policies to a
// reload that removed them) lets path through unchanged, as before
// per-neighbor assignments were evaluated.
func (r *RoutingPolicy) ApplyPeerPolicy(id string, dir PolicyDirection, path *Path, options *PolicyOptions) *Path {
	r.mu.RLock()
	a, ok := r.assignmentMap[id]
	r.mu.RUnlock()
	if !ok || a == nil {
		return path
	}
	switch dir {
	case POLICY_DIRECTION_IMPORT:
		if a.defaultImportPolicy == ROUTE_TYPE_NONE && len(a.importPolicies) == 0 {
			return path
		}
	case POLICY_DIRECTION_EXPORT:
		if a.defaultExportPolicy == ROUTE_TYPE_NONE && len(a.exportPolicies) == 0 {
			return path
		}
	}
	return r.ApplyPolicy(id, dir, path, options)
}
