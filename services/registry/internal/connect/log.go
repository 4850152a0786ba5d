package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/registry/core/pod"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// maxErrorBody bounds how much of a kubelet's error answer is read into
// the Status (kube's maxReadLength).
const maxErrorBody = 50000

// log streams a container's log from its kubelet, as kube's LogREST: the
// options validated as kube validates them, the container defaulted by
// kube's LogLocation, the kubelet's error answer turned into a Status, and
// a follow stream flushed as it comes.
func (h *Handler) log(ctx context.Context, w http.ResponseWriter, r *http.Request, info *requestinfo.Info) error {
	opts := &api.PodLogOptions{}
	if err := decodeOptions(r.URL.Query(), info, opts, false); err != nil {
		return err
	}
	// PodLogsQuerySplitStreams is off by default in 1.37: no stream option.
	if errs := validation.ValidatePodLogOptions(opts, false); len(errs) > 0 {
		return apierrors.NewInvalid(api.Kind("PodLogOptions"), info.Name, errs)
	}
	location, transport, err := pod.LogLocation(ctx, podGetter{pods: h.cfg.Pods, namespace: info.Namespace}, h.cfg.Kubelets, info.Name, opts)
	if err != nil {
		return err
	}
	if location == nil {
		// A pod on no node has no log yet: kube answers an empty 200.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, location.String(), nil)
	if err != nil {
		return err
	}
	c := &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("redirects forbidden")
	}}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := checkKubeletAnswer(resp, info.Name); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	copyStream(w, resp.Body, opts.Follow)
	return nil
}

// checkKubeletAnswer turns a kubelet's refusal into the Status kube
// makes of it (GenericHttpResponseChecker).
func checkKubeletAnswer(resp *http.Response, name string) error {
	if resp.StatusCode >= http.StatusOK && resp.StatusCode <= http.StatusPartialContent {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	text := string(body)
	switch resp.StatusCode {
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(fmt.Errorf("%s", text))
	case http.StatusBadRequest:
		return apierrors.NewBadRequest(text)
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, "", schema.GroupResource{Resource: "pods/log"}, name, text, 0, false)
}

// copyStream copies a log to the client, flushing after every read when
// it follows, so each line reaches the client as the kubelet sends it.
func copyStream(w http.ResponseWriter, body io.Reader, flush bool) {
	if !flush {
		_, _ = io.Copy(w, body)
		return
	}
	rc := http.NewResponseController(w)
	buf := make([]byte, 32*1024)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}
