package quota

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// The claim evaluator looks up the pod a scheduler-made extended-resource
// claim belongs to, and that pod's other such claims, so as not to charge
// twice what the pod was charged already. kube-apiserver reads them from
// informers of every pod and claim; here they are read live, only for
// those claims, rather than every admission replica watching every pod.

// liveReadTimeout bounds one such read.
const liveReadTimeout = 10 * time.Second

// errNoList: the evaluator only gets pods by name.
var errNoList = errors.New("resourcequota: pods are read by name only")

// livePods is a PodLister that reads pods from the API.
type livePods struct{ client kubernetes.Interface }

var _ corev1listers.PodLister = livePods{}

func (l livePods) List(labels.Selector) ([]*corev1.Pod, error) { return nil, errNoList }

func (l livePods) Pods(namespace string) corev1listers.PodNamespaceLister {
	return livePodsIn{client: l.client, namespace: namespace}
}

type livePodsIn struct {
	client    kubernetes.Interface
	namespace string
}

func (l livePodsIn) List(labels.Selector) ([]*corev1.Pod, error) { return nil, errNoList }

func (l livePodsIn) Get(name string) (*corev1.Pod, error) {
	ctx, cancel := context.WithTimeout(context.Background(), liveReadTimeout)
	defer cancel()
	return l.client.CoreV1().Pods(l.namespace).Get(ctx, name, metav1.GetOptions{})
}

// claimsOfPod lists the extended-resource claims a pod controls, as kube's
// claim index does.
func claimsOfPod(client kubernetes.Interface) func(namespace string, podUID types.UID) ([]*resourcev1.ResourceClaim, error) {
	return func(namespace string, podUID types.UID) ([]*resourcev1.ResourceClaim, error) {
		ctx, cancel := context.WithTimeout(context.Background(), liveReadTimeout)
		defer cancel()
		list, err := client.ResourceV1().ResourceClaims(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var out []*resourcev1.ResourceClaim
		for i := range list.Items {
			c := &list.Items[i]
			owner := metav1.GetControllerOfNoCopy(c)
			if c.Annotations[resourcev1.ExtendedResourceClaimAnnotation] == "true" && owner != nil &&
				owner.Kind == "Pod" && owner.APIVersion == "v1" && owner.UID == podUID {
				out = append(out, c)
			}
		}
		return out, nil
	}
}
