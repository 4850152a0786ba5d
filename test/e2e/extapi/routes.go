package extapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// groupVersion is Group/Version as discovery spells it.
var groupVersion = metav1.GroupVersionForDiscovery{GroupVersion: Group + "/" + Version, Version: Version}

// routes serves /healthz to anyone, everything else to front-proxy
// requests only.
func (s *Server) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			_, _ = w.Write([]byte("ok"))
			return
		}
		req, err := s.auth.authenticate(r)
		if err != nil {
			writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, err.Error())
			return
		}
		s.record(req)
		s.serveAPI(w, r, req)
	})
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, req Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "flunders are read-only")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/apis":
		writeJSON(w, metav1.APIGroupList{TypeMeta: meta("APIGroupList", "v1"), Groups: []metav1.APIGroup{group()}})
	case r.URL.Path == "/apis/"+Group:
		g := group()
		g.TypeMeta = meta("APIGroup", "v1")
		writeJSON(w, g)
	case r.URL.Path == "/apis/"+Group+"/"+Version:
		writeJSON(w, metav1.APIResourceList{TypeMeta: meta("APIResourceList", "v1"), GroupVersion: groupVersion.GroupVersion,
			APIResources: []metav1.APIResource{{Name: Resource, SingularName: "flunder", Namespaced: true, Kind: Kind, Verbs: []string{"get", "list"}}}})
	case len(parts) == 6 && parts[3] == "namespaces" && parts[5] == Resource:
		s.list(w, r, parts[4], req.User)
	case len(parts) == 7 && parts[3] == "namespaces" && parts[5] == Resource:
		writeJSON(w, flunder(parts[4], parts[6], req.User))
	default:
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
	}
}

// list answers with one flunder, as a Table when kubectl asks for one.
func (s *Server) list(w http.ResponseWriter, r *http.Request, ns, user string) {
	f := flunder(ns, "hello", user)
	if !strings.Contains(r.Header.Get("Accept"), "as=Table") {
		writeJSON(w, map[string]any{"apiVersion": groupVersion.GroupVersion, "kind": Kind + "List", "metadata": map[string]any{}, "items": []any{f}})
		return
	}
	raw, _ := json.Marshal(f)
	writeJSON(w, metav1.Table{
		TypeMeta: meta("Table", "meta.k8s.io/v1"),
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name"}, {Name: "Requested-By", Type: "string"},
		},
		Rows: []metav1.TableRow{{Cells: []any{"hello", user}, Object: runtime.RawExtension{Raw: raw}}},
	})
}

// flunder is the object name in ns, naming who asked for it.
func flunder(ns, name, user string) map[string]any {
	return map[string]any{
		"apiVersion": groupVersion.GroupVersion, "kind": Kind,
		"metadata": map[string]any{"name": name, "namespace": ns, "creationTimestamp": time.Now().UTC().Format(time.RFC3339)},
		"spec":     map[string]any{"requestedBy": user},
	}
}

func group() metav1.APIGroup {
	return metav1.APIGroup{Name: Group, Versions: []metav1.GroupVersionForDiscovery{groupVersion}, PreferredVersion: groupVersion}
}

func meta(kind, apiVersion string) metav1.TypeMeta {
	return metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: meta("Status", "v1"), Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg})
}
