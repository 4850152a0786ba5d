package storage

import "strings"

// dirIndex groups a cache's objects by the directory of their key (all of
// a namespace's objects of the resource, or all of a cluster-scoped
// resource's), so that a list in one namespace reads that namespace's
// objects only: its cost does not grow with objects it does not return.
type dirIndex map[string]map[string]*Object

// dir is the directory of key: up to and including its last slash.
func dir(key string) string { return key[:strings.LastIndexByte(key, '/')+1] }

func (ix dirIndex) put(key string, obj *Object) {
	d := dir(key)
	m := ix[d]
	if m == nil {
		m = map[string]*Object{}
		ix[d] = m
	}
	m[key] = obj
}

func (ix dirIndex) remove(key string) {
	d := dir(key)
	delete(ix[d], key)
	if len(ix[d]) == 0 {
		delete(ix, d)
	}
}

// indexOf indexes objects.
func indexOf(objects map[string]*Object) dirIndex {
	ix := dirIndex{}
	for key, obj := range objects {
		ix.put(key, obj)
	}
	return ix
}
