# kubesplit: a Kubernetes API server whose handler chain runs as separate
# services. `make run` starts the stack, `make test` runs every test.

SERVICES := registry aggregator authn authz admission
GO       ?= go
BIN      := bin
RUN_DIR  := .run
# Packages of every module in go.work (a plain ./... covers only one module).
PKGS     := work
TEST_TIMEOUT ?= 35m

.PHONY: all build kube-binaries run test test-long conformance controller-runtime test-unit test-e2e lint fmt vet check-work sync-work bench profile clean images certs compose-up compose-down

all: build

## build: static binaries of every service, the fused kubesplit, the load tool, etcd and kubesplit-certs into bin/
build:
	@mkdir -p $(BIN)
	@for s in $(SERVICES); do \
		CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/$$s ./services/$$s || exit 1; \
	done
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/kubesplit ./cmd/kubesplit
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/load ./tools/load
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/otlpsink ./tools/load/otlpsink
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/benchtable ./tools/load/benchtable
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/etcd ./tools/etcd
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/kubesplit-certs ./deploy/certs
	@echo "built: $(addprefix $(BIN)/,$(SERVICES)) $(BIN)/kubesplit (fused) $(BIN)/load $(BIN)/otlpsink $(BIN)/benchtable $(BIN)/etcd $(BIN)/kubesplit-certs"

## run: start the stack on loopback, write an admin kubeconfig, stop on Ctrl-C
run: build
	@hack/run.sh

## kube-binaries: the real Kubernetes v1.37.2 binaries (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok) built once into a cache outside the tree (hack/kube-binaries.sh)
kube-binaries:
	@hack/kube-binaries.sh

## test: unit, integration and end-to-end tests of every module
test: build kube-binaries
	KUBESPLIT_BIN=$(CURDIR)/$(BIN) KUBESPLIT_KUBE_BIN=$$(hack/kube-binaries.sh) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

## test-long: the tests too long for make test: the control-plane test against kube-apiserver v1.37.2 itself (TestControlPlaneOnKube), which shows the test asks what Kubernetes does
test-long: build kube-binaries
	KUBESPLIT_LONG_TESTS=1 KUBESPLIT_BIN=$(CURDIR)/$(BIN) KUBESPLIT_KUBE_BIN=$$(hack/kube-binaries.sh) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run '^TestControlPlaneOnKube$$' -v ./test/e2e

## conformance: Kubernetes' own [Conformance] tests (kube's e2e.test) against kubesplit and against kube-apiserver v1.37.2, each test's result on both in .run/conformance/summary.md (hack/conformance.sh, test/conformance/selection.txt; long, not part of make test)
conformance: build
	@BIN=$(BIN) hack/conformance.sh

## controller-runtime: controller-runtime v0.25.2's own envtest suites (pkg/client, pkg/cache, pkg/builder) against kube-apiserver v1.37.2 and against kubesplit, each suite on a freshly started server, counts and the specs failing on kubesplit only in .run/controller-runtime/summary.md (hack/controller-runtime.sh; not part of make test)
controller-runtime: build
	@BIN=$(BIN) hack/controller-runtime.sh

## lint: formatting, vet, go.work in sync with the modules, and each module building and tidy on its own (hack/lint-modules.sh)
lint: check-work
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@hack/lint-modules.sh

## check-work: fail when go.work does not list exactly the repository's modules
check-work:
	@hack/sync-go-work.sh --check

## sync-work: regenerate go.work from the go.mod files
sync-work:
	@hack/sync-go-work.sh

## bench: the Go benchmarks of the hot paths, then the load tool against kube-apiserver v1.37.2, the split stack and the fused binary side by side, printed as Markdown tables with their ratios (hack/bench.sh)
bench: build
	@hack/bench.sh

## profile: CPU profiles of every split service under the load tool, each summed up as its top functions (hack/profile.sh; OPS="get create")
profile: build
	@hack/profile.sh $(OPS)

## images: one image per service FROM scratch, kubesplit-certs and etcd (deploy/images; IMAGE_REPO, IMAGE_TAG, ETCD_IMAGE)
images: build
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/kubesplit-certs ./deploy/certs
	@BIN=$(BIN) deploy/images/build.sh

## certs: the CA, certificates, keys and tokens the Kubernetes manifests' Secrets are made from (deploy/k8s/base/certs, never committed)
certs:
	@CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/kubesplit-certs ./deploy/certs
	@$(BIN)/kubesplit-certs --dir deploy/k8s/base/certs --namespace kubesplit --internal-url https://aggregator:6443 \
		--public-url $${KUBESPLIT_PUBLIC_URL:-https://127.0.0.1:6443}

## compose-up: the images, then the compose stack (deploy/compose); writes .run/compose.kubeconfig
compose-up: images
	@deploy/compose/up.sh

## compose-down: stop the compose stack and remove its containers, network and volumes
compose-down:
	$${COMPOSE:-docker-compose} -f deploy/compose/docker-compose.yml -p $${COMPOSE_PROJECT_NAME:-kubesplit} down -v --remove-orphans

clean:
	rm -rf $(BIN) $(RUN_DIR)
