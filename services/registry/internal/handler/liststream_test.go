package handler

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// A streamed list is a whole, valid List in every format: client-go decodes
// the same items from JSON and protobuf, whole or in pages, as from YAML
// (still assembled) and from reading each object; its Content-Length is
// its length; an empty list has empty items; a Table has a row per item.
func TestStreamedListsDecode(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{
		`{"metadata":{"name":"a","labels":{"app":"x"},"annotations":{"note":"ünïcødé \"quoted\""}},"data":{"k":"v","json":"{\"a\":[1,2]}"}}`,
		`{"metadata":{"name":"b"},"binaryData":{"bin":"AAECAw=="}}`,
		`{"metadata":{"name":"c"},"data":{"multi":"line one\nline two\n"},"immutable":true}`,
		`{"metadata":{"name":"d"}}`,
	} {
		e.mustDo("POST", cmPath, body, http.StatusCreated)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var want []corev1.ConfigMap
	for _, name := range []string{"a", "b", "c", "d"} {
		cm, err := clientFor(t, e, "application/json").CoreV1().ConfigMaps("ns").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, *cm)
	}
	want = withoutTypeMeta(want)

	for _, media := range []string{"application/json", protobufMedia} {
		cms := clientFor(t, e, media).CoreV1().ConfigMaps("ns")
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("%s: %v", media, err)
		}
		if !reflect.DeepEqual(withoutTypeMeta(list.Items), want) || list.ResourceVersion == "" {
			t.Errorf("%s list at %q:\n%+v\nwant\n%+v", media, list.ResourceVersion, list.Items, want)
		}
		var paged []corev1.ConfigMap
		opts := metav1.ListOptions{Limit: 3}
		for {
			page, err := cms.List(ctx, opts)
			if err != nil {
				t.Fatalf("%s page: %v", media, err)
			}
			paged = append(paged, page.Items...)
			if page.Continue == "" {
				break
			}
			opts.Continue = page.Continue
		}
		if !reflect.DeepEqual(withoutTypeMeta(paged), want) {
			t.Errorf("%s pages:\n%+v\nwant\n%+v", media, paged, want)
		}
		empty, err := clientFor(t, e, media).CoreV1().ConfigMaps("none").List(ctx, metav1.ListOptions{})
		if err != nil || len(empty.Items) != 0 || empty.ResourceVersion == "" {
			t.Errorf("%s empty list: %v %+v", media, err, empty)
		}
		resp, data := e.do("GET", cmPath, "", "Accept", media)
		if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(data)) {
			t.Errorf("%s: Content-Length %q for %d bytes", media, cl, len(data))
		}
	}

	resp, data := e.do("GET", cmPath, "", "Accept", "application/yaml")
	var fromYAML corev1.ConfigMapList
	if err := yaml.Unmarshal(data, &fromYAML); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("YAML list: %d %v: %s", resp.StatusCode, err, data)
	}
	if !reflect.DeepEqual(withoutTypeMeta(fromYAML.Items), want) {
		t.Errorf("YAML list:\n%+v\nwant\n%+v", fromYAML.Items, want)
	}
	if _, data := e.do("GET", "/api/v1/namespaces/none/configmaps", ""); string(data) == "" || !json.Valid(data) {
		t.Errorf("empty JSON list %s", data)
	} else if list := jsonMap(data); list["items"] == nil || len(list["items"].([]any)) != 0 {
		t.Errorf("empty JSON list %s", data)
	}

	// Every row of a Table carries its whole object when asked to.
	_, data = e.do("GET", cmPath+"?includeObject=Object", "", "Accept", tableAccept)
	var table metav1.Table
	if err := runtime.DecodeInto(clientgoscheme.Codecs.UniversalDecoder(), data, &table); err != nil {
		t.Fatalf("decode Table: %v: %s", err, data)
	}
	if len(table.Rows) != len(want) || len(table.ColumnDefinitions) == 0 {
		t.Fatalf("Table of %d rows, %d columns: %s", len(table.Rows), len(table.ColumnDefinitions), data)
	}
	for i, row := range table.Rows {
		var cm corev1.ConfigMap
		if err := json.Unmarshal(row.Object.Raw, &cm); err != nil || !reflect.DeepEqual(withoutTypeMeta([]corev1.ConfigMap{cm})[0], want[i]) || row.Cells[0] != want[i].Name {
			t.Errorf("row %d: %v %v %s", i, err, row.Cells, row.Object.Raw)
		}
	}
	_, data = e.do("GET", "/api/v1/namespaces/none/configmaps", "", "Accept", tableAccept)
	if err := runtime.DecodeInto(clientgoscheme.Codecs.UniversalDecoder(), data, &table); err != nil || len(table.Rows) != 0 {
		t.Errorf("empty Table: %v: %s", err, data)
	}

	var partial metav1.PartialObjectMetadataList
	_, data = e.do("GET", cmPath, "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	if err := json.Unmarshal(data, &partial); err != nil || len(partial.Items) != len(want) {
		t.Fatalf("PartialObjectMetadataList: %v: %s", err, data)
	}
	for i, item := range partial.Items {
		if !reflect.DeepEqual(item.ObjectMeta, want[i].ObjectMeta) {
			t.Errorf("partial item %d: %+v, want %+v", i, item.ObjectMeta, want[i].ObjectMeta)
		}
	}
}

// clientFor is a clientset for e that speaks media.
func clientFor(t *testing.T, e *env, media string) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: e.url, ContentConfig: rest.ContentConfig{
		ContentType: media, AcceptContentTypes: media,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// withoutTypeMeta clears the items' kind and apiVersion, which JSON items
// carry and protobuf items and client-go's typed gets do not.
func withoutTypeMeta(items []corev1.ConfigMap) []corev1.ConfigMap {
	out := make([]corev1.ConfigMap, len(items))
	for i, item := range items {
		item.TypeMeta = metav1.TypeMeta{}
		out[i] = item
	}
	return out
}
