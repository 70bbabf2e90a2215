package page

import "maps"

// A session's values read from the session cache are the cache's map,
// shared by every request of that session on this replica: copying it
// for each view was a signed-in page's largest cost in the session. The
// visit copies it before its first change instead, so every change goes
// through Set, Delete or Clear (TestSessionValuesChangeOnlyThroughTheVisit
// holds the code to it).

// Set keeps val under key in the visit's session, saved after the
// handler.
func (v *Visit) Set(key string, val any) {
	v.own()
	v.Session.Values[key] = val
	v.Changed = true
}

// Delete drops keys from the visit's session.
func (v *Visit) Delete(keys ...string) {
	v.own()
	for _, k := range keys {
		delete(v.Session.Values, k)
	}
	v.Changed = true
}

// clearValues drops every value of the visit's session.
func (v *Visit) clearValues() {
	v.Session.Values = map[any]any{}
	v.ValuesShared = false
	v.Changed = true
}

// own makes the session's values the visit's own to change.
func (v *Visit) own() {
	if v.ValuesShared {
		v.Session.Values = maps.Clone(v.Session.Values)
		v.ValuesShared = false
	}
}
