package handler

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// maxNameGenerationAttempts bounds the creates of one request that uses
// generateName, as kube's RetryGenerateName does: with five random
// characters a collision becomes likely after a few thousand names under
// one prefix, and eight attempts keep it under 0.1% for a million.
const maxNameGenerationAttempts = 8

// randomSuffix is kube's generator of the random part of a generated name:
// five characters that never spell words.
func randomSuffix() string { return rand.String(5) }

// createNamed stores obj, which the caller decoded and will not reuse. An
// object named by generateName that collides with an existing one is
// created again under a new name, admission and validation included, since
// they saw the old name; after maxNameGenerationAttempts collisions the
// answer is kube's: 409 AlreadyExists saying no unique name was found.
func (q *request) createNamed(wr *write, obj *unstructured.Unstructured) (*storage.Object, error) {
	generated := obj.GetName() == "" && obj.GetGenerateName() != ""
	for attempt := 1; ; attempt++ {
		try := obj
		if generated {
			try = obj.DeepCopy()
			try.SetName(obj.GetGenerateName() + q.h.suffix())
		}
		stored, err := q.createOnce(wr, try)
		switch {
		case err == nil || !generated || !apierrors.IsAlreadyExists(err):
			return stored, err
		case attempt == maxNameGenerationAttempts:
			return nil, apierrors.NewGenerateNameConflict(q.groupResource(), try.GetName(), 1)
		}
	}
}

// createOnce admits and stores obj under the name it has.
func (q *request) createOnce(wr *write, obj *unstructured.Unstructured) (*storage.Object, error) {
	if err := q.admitCreate(wr, obj); err != nil {
		return nil, err
	}
	return q.store.Create(q.r.Context(), obj, wr.dryRun)
}
