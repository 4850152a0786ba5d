package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestClientGoInformer runs a shared informer for ConfigMaps. client-go
// v0.37 fills informers with a WatchList (a watch with sendInitialEvents
// that ends its initial events with a bookmark) instead of a list; the
// test checks that this path is the one taken, that the cache syncs with
// what existed, and that later adds, updates and deletes arrive.
func TestClientGoInformer(t *testing.T) {
	t.Parallel()
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Fatal("client-go's WatchListClient feature is off: this test would not exercise the WatchList path")
	}
	r := framework.StartRegistry(t)
	cfg := r.RESTConfig(t, true)
	requests := &requestLog{}
	cfg.Wrap(requests.wrap)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := c.CoreV1().ConfigMaps("default")
	for i := range 3 {
		createConfigMap(t, cms, fmt.Sprintf("before-%d", i), nil)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace("default"))
	informer := factory.Core().V1().ConfigMaps()
	events := make(chan string, 100)
	_, err = informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { events <- "add " + obj.(*corev1.ConfigMap).Name },
		UpdateFunc: func(_, obj any) {
			cm := obj.(*corev1.ConfigMap)
			events <- "update " + cm.Name + " " + cm.Data["v"]
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			events <- "delete " + obj.(*corev1.ConfigMap).Name
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	factory.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx(t), 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.Informer().HasSynced) {
		t.Fatalf("the informer did not sync within 30s; requests made: %v", requests.all())
	}
	for i := range 3 {
		if _, err := informer.Lister().ConfigMaps("default").Get(fmt.Sprintf("before-%d", i)); err != nil {
			t.Errorf("synced cache lacks before-%d: %v", i, err)
		}
	}
	// The initial adds come in no particular order.
	initial := map[string]bool{}
	for range 3 {
		initial[nextEvent(t, events)] = true
	}
	for i := range 3 {
		if want := fmt.Sprintf("add before-%d", i); !initial[want] {
			t.Errorf("initial informer events %v lack %q", initial, want)
		}
	}

	// The cache was filled by a WatchList, not a LIST.
	var watchList, lists int
	for _, u := range requests.all() {
		q := u.Query()
		switch {
		case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
			watchList++
			if q.Get("allowWatchBookmarks") != "true" || q.Get("resourceVersionMatch") != string(metav1.ResourceVersionMatchNotOlderThan) {
				t.Errorf("the WatchList request lacks bookmarks or resourceVersionMatch=NotOlderThan: %s", u)
			}
		case q.Get("watch") != "true" && u.Path == "/api/v1/namespaces/default/configmaps":
			lists++
		}
	}
	if watchList == 0 || lists != 0 {
		t.Errorf("want the informer to start with a WatchList and no LIST; saw %d WatchList and %d LIST requests: %v", watchList, lists, requests.all())
	}

	cm := createConfigMap(t, cms, "after", map[string]string{"v": "1"})
	expectEvent(t, events, "add after")
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx(t), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, events, "update after 2")
	if err := cms.Delete(ctx(t), "after", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, events, "delete after")
	if _, err := informer.Lister().ConfigMaps("default").Get("after"); err == nil {
		t.Error("the deleted ConfigMap is still in the informer's cache")
	}
}

// expectEvent waits for the next informer event and checks it.
func expectEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	if got := nextEvent(t, events); got != want {
		t.Fatalf("informer event %q, want %q", got, want)
	}
}

// nextEvent waits for the next informer event.
func nextEvent(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case got := <-events:
		return got
	case <-time.After(30 * time.Second):
		t.Fatal("no informer event within 30s")
	}
	return ""
}

// requestLog records the URL of every GET a client makes.
type requestLog struct {
	mu   sync.Mutex
	urls []*url.URL
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet {
			l.mu.Lock()
			l.urls = append(l.urls, req.URL)
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// all returns the GETs so far.
func (l *requestLog) all() []*url.URL {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*url.URL(nil), l.urls...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
