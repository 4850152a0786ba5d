package handler

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restwatch "k8s.io/client-go/rest/watch"
	"sigs.k8s.io/yaml"
)

const (
	protobufMedia = "application/vnd.kubernetes.protobuf"
	tableAccept   = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// protobufCodec is the serializer client-go uses for protobuf.
func protobufCodec(t *testing.T) runtime.SerializerInfo {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(clientgoscheme.Codecs.SupportedMediaTypes(), protobufMedia)
	if !ok {
		t.Fatal("client-go has no protobuf serializer")
	}
	return info
}

func TestTableResponse(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"one"},"data":{"a":"1"}}`, http.StatusCreated)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"two"},"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}}`, http.StatusCreated)
	resp, data := e.do("GET", cmPath, "", "Accept", tableAccept)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	var table metav1.Table
	if err := runtime.DecodeInto(clientgoscheme.Codecs.UniversalDecoder(), data, &table); err != nil {
		t.Fatalf("decode Table: %v: %s", err, data)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if table.Kind != "Table" || strings.Join(cols, ",") != "Name,Data,Age" {
		t.Fatalf("kind %s, columns %v", table.Kind, cols)
	}
	if len(table.Rows) != 2 || table.ResourceVersion == "" {
		t.Fatalf("%d rows at rv %q", len(table.Rows), table.ResourceVersion)
	}
	for i, want := range []struct {
		name string
		data int64
	}{{"one", 1}, {"two", 3}} {
		cells := table.Rows[i].Cells
		if len(cells) != 3 || cells[0] != want.name || cells[1] != want.data || cells[2] == "" {
			t.Errorf("row %d: %v", i, cells)
		}
		var meta metav1.PartialObjectMetadata
		if err := runtime.DecodeInto(clientgoscheme.Codecs.UniversalDecoder(), table.Rows[i].Object.Raw, &meta); err != nil || meta.Name != want.name {
			t.Errorf("row %d object: %v %s", i, err, table.Rows[i].Object.Raw)
		}
	}
	// One object, and rows carrying the whole object.
	one := e.mustDo("GET", cmPath+"/one?includeObject=Object", "", http.StatusOK, "Accept", tableAccept)
	rows := one["rows"].([]any)
	if len(rows) != 1 || str(rows[0].(map[string]any), "object.data.a") != "1" {
		t.Fatalf("table of one object: %v", one)
	}
}

func TestPartialObjectMetadata(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"one","labels":{"l":"v"}},"data":{"secret":"data"}}`, http.StatusCreated)
	list := e.mustDo("GET", cmPath, "", http.StatusOK, "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	if str(list, "kind") != "PartialObjectMetadataList" || str(list, "apiVersion") != "meta.k8s.io/v1" || str(list, "metadata.resourceVersion") == "" {
		t.Fatalf("list %v", list)
	}
	items := list["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("items %v", items)
	}
	item := items[0].(map[string]any)
	if str(item, "metadata.name") != "one" || str(item, "metadata.labels.l") != "v" || item["data"] != nil {
		t.Fatalf("item %v", item)
	}
	one := e.mustDo("GET", cmPath+"/one", "", http.StatusOK, "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if str(one, "kind") != "PartialObjectMetadata" || str(one, "metadata.uid") == "" || one["data"] != nil {
		t.Fatalf("object %v", one)
	}
	// The same list as protobuf.
	resp, data := e.do("GET", cmPath, "", "Accept", protobufMedia+";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	if resp.Header.Get("Content-Type") != protobufMedia {
		t.Fatalf("content type %q: %s", resp.Header.Get("Content-Type"), data)
	}
	var pl metav1.PartialObjectMetadataList
	if err := runtime.DecodeInto(protobufCodec(t).Serializer, data, &pl); err != nil || len(pl.Items) != 1 || pl.Items[0].Name != "one" {
		t.Fatalf("protobuf PartialObjectMetadataList: %v %+v", err, pl)
	}
}

func TestProtobufResponses(t *testing.T) {
	e := newEnv(t)
	created := e.mustDo("POST", cmPath, `{"metadata":{"name":"one"},"data":{"k":"v"}}`, http.StatusCreated)
	pb := protobufCodec(t)

	resp, data := e.do("GET", cmPath+"/one", "", "Accept", protobufMedia)
	if resp.Header.Get("Content-Type") != protobufMedia {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	obj, _, err := pb.Serializer.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Name != "one" || cm.Data["k"] != "v" || cm.ResourceVersion != str(created, "metadata.resourceVersion") || string(cm.UID) != str(created, "metadata.uid") {
		t.Fatalf("protobuf object %#v", obj)
	}

	resp, data = e.do("GET", cmPath, "", "Accept", protobufMedia)
	if resp.Header.Get("Content-Type") != protobufMedia {
		t.Fatalf("list content type %q", resp.Header.Get("Content-Type"))
	}
	obj, _, err = pb.Serializer.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if list, ok := obj.(*corev1.ConfigMapList); !ok || len(list.Items) != 1 || list.Items[0].Name != "one" || list.ResourceVersion == "" {
		t.Fatalf("protobuf list %#v", obj)
	}

	// A watch streams length-delimited protobuf WatchEvents.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+cmPath+"?watch=true&resourceVersion="+str(created, "metadata.resourceVersion"), nil)
	req.Header.Set("Accept", protobufMedia)
	wresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer wresp.Body.Close()
	if ct := wresp.Header.Get("Content-Type"); !strings.HasPrefix(ct, protobufMedia) || !strings.Contains(ct, "stream=watch") {
		t.Fatalf("watch content type %q", ct)
	}
	frames := pb.StreamSerializer.Framer.NewFrameReader(wresp.Body)
	dec := restwatch.NewDecoder(streaming.NewDecoder(frames, pb.StreamSerializer.Serializer), pb.Serializer)
	e.mustDo("PUT", cmPath+"/one", `{"metadata":{"name":"one"},"data":{"k":"w"}}`, http.StatusOK)
	e.mustDo("DELETE", cmPath+"/one", "", http.StatusOK)
	for _, want := range []struct {
		typ watch.EventType
		k   string
	}{{watch.Modified, "w"}, {watch.Deleted, "w"}} {
		typ, obj, err := dec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		cm, ok := obj.(*corev1.ConfigMap)
		if typ != want.typ || !ok || cm.Data["k"] != want.k {
			t.Fatalf("watch event %s %#v, want %s", typ, obj, want.typ)
		}
	}
}

// client-go itself, speaking protobuf, reads objects, lists and watches.
func TestClientGoOverProtobuf(t *testing.T) {
	e := newEnv(t)
	var sawProtobuf bool
	cfg := &rest.Config{Host: e.url, ContentConfig: rest.ContentConfig{
		ContentType: protobufMedia, AcceptContentTypes: protobufMedia,
	}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), protobufMedia) {
				sawProtobuf = true
			}
			return resp, err
		})
	})
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("ns")
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pb"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sawProtobuf {
		t.Fatal("the create was not answered in protobuf")
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created.Data["k"] = "w"
	if _, err := cms.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Modified || !ok || cm.Data["k"] != "w" {
			t.Fatalf("watch event %s %#v", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Data["k"] != "w" {
		t.Fatalf("list: %v %+v", err, list)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// kube still serves meta.k8s.io/v1beta1 Tables to clients that ask for
// them; other meta.k8s.io/v1beta1 views are 406.
func TestV1beta1Table(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"one"},"data":{"a":"1"}}`, http.StatusCreated)
	got := e.mustDo("GET", cmPath, "", http.StatusOK, "Accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io")
	if got["apiVersion"] != "meta.k8s.io/v1beta1" || got["kind"] != "Table" {
		t.Fatalf("v1beta1 Table answered as %v %v", got["apiVersion"], got["kind"])
	}
	if rows, _ := got["rows"].([]any); len(rows) != 1 {
		t.Fatalf("rows %v", got["rows"])
	}
	if resp, _ := e.do("GET", cmPath, "", "Accept", "application/json;as=PartialObjectMetadataList;v=v1beta2;g=meta.k8s.io"); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("an unknown meta.k8s.io version: %d, want 406", resp.StatusCode)
	}
}

// The items of a built-in list name no apiVersion or kind, in JSON and in
// YAML, as kube encodes them; the list says what they are.
func TestBuiltinListItemsNameNoType(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"one"},"data":{"k":"v"}}`, http.StatusCreated)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"two"}}`, http.StatusCreated)
	resp, data := e.do("GET", cmPath, "")
	var list map[string]any
	if err := json.Unmarshal(data, &list); err != nil || resp.ContentLength != int64(len(data)) {
		t.Fatalf("list (Content-Length %d of %d bytes): %v %s", resp.ContentLength, len(data), err, data)
	}
	_, yamlData := e.do("GET", cmPath, "", "Accept", "application/yaml")
	var yamlList map[string]any
	if err := yaml.Unmarshal(yamlData, &yamlList); err != nil {
		t.Fatalf("YAML list: %v %s", err, yamlData)
	}
	for _, l := range []map[string]any{list, yamlList} {
		items, _ := l["items"].([]any)
		if str(l, "kind") != "ConfigMapList" || len(items) != 2 {
			t.Fatalf("list %v", l)
		}
		for _, it := range items {
			item := it.(map[string]any)
			if item["apiVersion"] != nil || item["kind"] != nil || str(item, "metadata.name") == "" {
				t.Errorf("item %v", item)
			}
		}
		if str(items[0].(map[string]any), "data.k") != "v" {
			t.Errorf("first item's data: %v", items[0])
		}
	}
	if got := e.mustDo("GET", cmPath+"/one", "", http.StatusOK); str(got, "kind") != "ConfigMap" || str(got, "apiVersion") != "v1" {
		t.Errorf("a single object names its type: %v", got)
	}
}
