package authn

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

var selfSubjectReviewKind = authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview")

// reviewCodecs knows authentication.k8s.io/v1 only, so another kind in a
// body is refused rather than misread. kubectl auth whoami posts protobuf.
var reviewCodecs = func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	_ = authenticationv1.AddToScheme(scheme) // only fails on a conflicting registration
	return serializer.NewCodecFactory(scheme)
}()

// readSelfSubjectReview decodes the posted review as kube's create handler
// would: 405 for anything but POST, 413 over the size limit, 415 for a
// media type we do not speak, 400 for a body that is not a
// SelfSubjectReview.
func readSelfSubjectReview(r *http.Request) error {
	if r.Method != http.MethodPost {
		return apierrors.NewMethodNotSupported(selfSubjectReviews, r.Method)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxSelfSubjectReviewBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", maxSelfSubjectReviewBytes))
	} else if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	mediaType := "application/json"
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mediaType, _, err = mime.ParseMediaType(ct); err != nil {
			return unsupportedMediaType(ct)
		}
	}
	info, ok := runtime.SerializerInfoForMediaType(reviewCodecs.SupportedMediaTypes(), mediaType)
	if !ok {
		return unsupportedMediaType(mediaType)
	}
	obj, gvk, err := info.Serializer.Decode(body, &selfSubjectReviewKind, &authenticationv1.SelfSubjectReview{})
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("cannot decode SelfSubjectReview: %v", err))
	}
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok || *gvk != selfSubjectReviewKind {
		return apierrors.NewBadRequest(fmt.Sprintf("body is %v, want %v", gvk, selfSubjectReviewKind))
	}
	return nil
}

// unsupportedMediaType is kube's 415 for a body it cannot read.
func unsupportedMediaType(contentType string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "create", selfSubjectReviews, "",
		fmt.Sprintf("the body of the request was in an unknown format %q", contentType), 0, false)
}
