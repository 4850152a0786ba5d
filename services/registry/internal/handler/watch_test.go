package handler

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// watchEvent is one JSON watch event as sent on the wire.
type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watchStream reads the JSON events of one watch request.
type watchStream struct {
	t    *testing.T
	scan *bufio.Scanner
}

func (e *env) watch(query string, header ...string) *watchStream {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	e.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+cmPath+"?watch=true&"+query, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("watch %s: %d", query, resp.StatusCode)
	}
	scan := bufio.NewScanner(resp.Body)
	scan.Buffer(nil, 1<<20)
	return &watchStream{t: e.t, scan: scan}
}

func (w *watchStream) next() watchEvent {
	w.t.Helper()
	if !w.scan.Scan() {
		w.t.Fatalf("watch ended: %v", w.scan.Err())
	}
	var ev watchEvent
	if err := json.Unmarshal(w.scan.Bytes(), &ev); err != nil {
		w.t.Fatalf("bad event %s: %v", w.scan.Bytes(), err)
	}
	return ev
}

// expect reads an event of type typ about the object named name.
func (w *watchStream) expect(typ, name string) watchEvent {
	w.t.Helper()
	ev := w.next()
	if ev.Type != typ || str(ev.Object, "metadata.name") != name {
		w.t.Fatalf("event %s %s, want %s %s", ev.Type, str(ev.Object, "metadata.name"), typ, name)
	}
	return ev
}

func rvOf(t *testing.T, obj map[string]any) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(str(obj, "metadata.resourceVersion"), 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion of %v: %v", obj, err)
	}
	return rv
}

// sendInitialEvents=true sends the current state, then a BOOKMARK marked
// as the end of the initial events, then the changes.
func TestWatchInitialEventsEndWithBookmark(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a","labels":{"app":"x"}}}`, http.StatusCreated)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"b","labels":{"app":"y"}}}`, http.StatusCreated)
	last := e.mustDo("POST", cmPath, `{"metadata":{"name":"c","labels":{"app":"x"}}}`, http.StatusCreated)

	w := e.watch("sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Dx")
	w.expect("ADDED", "a")
	w.expect("ADDED", "c")
	bm := w.next()
	if bm.Type != "BOOKMARK" || str(bm.Object, "kind") != "ConfigMap" || str(bm.Object, "apiVersion") != "v1" {
		t.Fatalf("after the initial events: %s %v", bm.Type, bm.Object)
	}
	// The annotation key holds dots, so it is read from the map itself.
	if ann, _ := at(bm.Object, "metadata.annotations").(map[string]any); ann["k8s.io/initial-events-end"] != "true" {
		t.Fatalf("bookmark annotations %v", ann)
	}
	if rvOf(t, bm.Object) < rvOf(t, last) {
		t.Fatalf("bookmark at %d, before the last object at %d", rvOf(t, bm.Object), rvOf(t, last))
	}
	d := e.mustDo("POST", cmPath, `{"metadata":{"name":"d","labels":{"app":"x"}}}`, http.StatusCreated)
	if ev := w.expect("ADDED", "d"); rvOf(t, ev.Object) != rvOf(t, d) {
		t.Fatalf("event at %d, object at %d", rvOf(t, ev.Object), rvOf(t, d))
	}

	// Without allowWatchBookmarks, no bookmark ends the initial events.
	plain := e.watch("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Dy")
	plain.expect("ADDED", "b")
	e.mustDo("POST", cmPath, `{"metadata":{"name":"e","labels":{"app":"y"}}}`, http.StatusCreated)
	plain.expect("ADDED", "e")
}

// Periodic bookmarks never claim a revision before an event not yet sent.
func TestWatchPeriodicBookmarks(t *testing.T) {
	old := BookmarkInterval
	BookmarkInterval = 20 * time.Millisecond
	t.Cleanup(func() { BookmarkInterval = old })
	e := newEnv(t)
	start := e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	w := e.watch("allowWatchBookmarks=true&resourceVersion=" + str(start, "metadata.resourceVersion"))
	b := e.mustDo("POST", cmPath, `{"metadata":{"name":"b"}}`, http.StatusCreated)
	var seenB bool
	for {
		ev := w.next()
		switch ev.Type {
		case "ADDED":
			seenB = str(ev.Object, "metadata.name") == "b"
		case "BOOKMARK":
			if rv := rvOf(t, ev.Object); rv >= rvOf(t, b) && !seenB {
				t.Fatalf("bookmark at %d before the event at %d", rv, rvOf(t, b))
			}
			if seenB {
				return
			}
		default:
			t.Fatalf("unexpected %s", ev.Type)
		}
	}
}

// A watch of Tables sends the column definitions in its first event only,
// and its bookmarks as Tables too, as kube sends them: kubectl get -w
// prints the header once and takes every event for a Table.
func TestTableWatchHeadersOnceAndBookmarkAsTable(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"b"}}`, http.StatusCreated)
	w := e.watch("sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", "Accept", tableAccept)
	for i, name := range []string{"a", "b"} {
		ev := w.next()
		cols, _ := at(ev.Object, "columnDefinitions").([]any)
		if ev.Type != "ADDED" || str(ev.Object, "kind") != "Table" || str(rowOf(t, ev.Object), "metadata.name") != name {
			t.Fatalf("event %d: %s %v", i, ev.Type, ev.Object)
		}
		if (i == 0) != (len(cols) > 0) {
			t.Errorf("event %d has %d column definitions; kube sends them with the first only", i, len(cols))
		}
	}
	bm := w.next()
	if bm.Type != "BOOKMARK" || str(bm.Object, "kind") != "Table" || at(bm.Object, "columnDefinitions") != nil {
		t.Fatalf("bookmark: %s %v", bm.Type, bm.Object)
	}
	row := rowOf(t, bm.Object)
	if ann, _ := at(row, "metadata.annotations").(map[string]any); str(row, "kind") != "PartialObjectMetadata" || ann["k8s.io/initial-events-end"] != "true" || rvOf(t, row) == 0 {
		t.Errorf("bookmark row object: %v", row)
	}
}

// rowOf is the object of a one-row Table.
func rowOf(t *testing.T, table map[string]any) map[string]any {
	t.Helper()
	rows, _ := table["rows"].([]any)
	if len(rows) != 1 {
		t.Fatalf("rows %v", table["rows"])
	}
	obj, _ := rows[0].(map[string]any)["object"].(map[string]any)
	return obj
}

// A metadata watch's bookmarks are PartialObjectMetadata like its events,
// in JSON and in protobuf: client-go's metadata informers (kube-controller-
// manager's garbage collector and quota monitors for custom resources)
// cannot decode the resource's own kind and would end the watch on it.
func TestMetadataWatchBookmarks(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	w := e.watch("sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
		"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if ev := w.expect("ADDED", "a"); str(ev.Object, "kind") != "PartialObjectMetadata" {
		t.Fatalf("event: %v", ev.Object)
	}
	if bm := w.next(); bm.Type != "BOOKMARK" || str(bm.Object, "kind") != "PartialObjectMetadata" || str(bm.Object, "apiVersion") != "meta.k8s.io/v1" {
		t.Fatalf("bookmark: %s %v", bm.Type, bm.Object)
	}

	// client-go's metadata client asks for protobuf first.
	mc, err := metadata.NewForConfig(&rest.Config{Host: e.url})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	send := true
	wi, err := mc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace("ns").Watch(ctx, metav1.ListOptions{
		SendInitialEvents: &send, AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	for _, want := range []watch.EventType{watch.Added, watch.Bookmark} {
		ev, ok := <-wi.ResultChan()
		if !ok || ev.Type != want {
			t.Fatalf("protobuf metadata watch: %v %v (open %v), want %s", ev.Type, ev.Object, ok, want)
		}
		if _, isMeta := ev.Object.(*metav1.PartialObjectMetadata); !isMeta {
			t.Fatalf("%s event object %T", want, ev.Object)
		}
	}
}
