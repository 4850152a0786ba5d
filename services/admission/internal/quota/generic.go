package quota

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// genericPageSize bounds one page of a generic count's list.
const genericPageSize = "500"

// genericCounter counts the objects of any resource in a namespace with a
// paged list through the API, for the generic count/<resource>.<group>
// quotas of resources the controller has no informer for. Deletions of
// those objects are only seen at the next resync (kube watches their
// metadata; this trades promptness for not watching every resource).
type genericCounter struct {
	client kubernetes.Interface
}

// count returns how many objects of gr ns holds; false when this client
// cannot list arbitrary resources (a fake one in tests).
func (g genericCounter) count(ctx context.Context, gr schema.GroupResource, ns string) (int64, bool, error) {
	rc := g.client.Discovery().RESTClient()
	if rc == nil {
		return 0, false, nil
	}
	version, err := g.preferredVersion(gr.Group)
	if err != nil || version == "" {
		// A group the server does not serve has no objects.
		return 0, true, err
	}
	path := "/apis/" + gr.Group + "/" + version
	if gr.Group == "" {
		path = "/api/" + version
	}
	path += "/namespaces/" + ns + "/" + gr.Resource
	var n int64
	for cont := ""; ; {
		req := rc.Get().AbsPath(path).Param("limit", genericPageSize)
		if cont != "" {
			req = req.Param("continue", cont)
		}
		raw, err := req.DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			return 0, true, nil
		}
		if err != nil {
			return 0, false, err
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return 0, false, fmt.Errorf("listing %s: %w", gr, err)
		}
		n += int64(len(page.Items))
		if cont = page.Metadata.Continue; cont == "" {
			return n, true, nil
		}
	}
}

// preferredVersion is the version the server prefers for group; empty if
// it does not serve it.
func (g genericCounter) preferredVersion(group string) (string, error) {
	groups, err := g.client.Discovery().ServerGroups()
	if err != nil {
		return "", err
	}
	for _, grp := range groups.Groups {
		if grp.Name == group {
			return grp.PreferredVersion.Version, nil
		}
	}
	return "", nil
}
