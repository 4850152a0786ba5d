package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/uuid"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/kubesplit/kubesplit/pkg/endpointlease"
)

// The values of --endpoint-reconciler-type kubesplit has (kube's
// master-count is not: the registry reconciles from leases only).
const (
	EndpointReconcilerLease = "lease"
	EndpointReconcilerNone  = "none"
)

// DefaultEndpointLeaseDuration is kube-apiserver's TTL of its
// /masterleases/ keys; it renews them every 10s, two thirds of it.
const DefaultEndpointLeaseDuration = 15 * time.Second

// leaseRemoveTimeout bounds the removal of the lease on Close, as kube
// bounds its RemoveEndpoints.
const leaseRemoveTimeout = 5 * time.Second

// validateEndpointReconciler checks the reconciler flags; an advertise
// address given explicitly must be one an Endpoints may hold, as
// kube-apiserver refuses to start otherwise.
func validateEndpointReconciler(cfg Config) error {
	switch cfg.EndpointReconcilerType {
	case "", EndpointReconcilerLease, EndpointReconcilerNone:
	default:
		return fmt.Errorf("%w: --endpoint-reconciler-type %q: must be one of %q, %q", ErrInvalidConfig,
			cfg.EndpointReconcilerType, EndpointReconcilerLease, EndpointReconcilerNone)
	}
	if cfg.EndpointLeaseDuration != 0 && cfg.EndpointLeaseDuration < time.Second {
		return fmt.Errorf("%w: endpoint lease duration %v is under a second", ErrInvalidConfig, cfg.EndpointLeaseDuration)
	}
	if cfg.AdvertiseAddress == "" {
		return nil
	}
	ip, err := netip.ParseAddr(cfg.AdvertiseAddress)
	if err != nil {
		return fmt.Errorf("%w: --advertise-address %q is not an IP address", ErrInvalidConfig, cfg.AdvertiseAddress)
	}
	if cfg.EndpointReconcilerType != EndpointReconcilerNone {
		if err := endpointIP(ip); err != nil {
			return fmt.Errorf("%w: cannot use public IP %s with endpoint reconciler: %w", ErrInvalidConfig, ip, err)
		}
	}
	return nil
}

// endpointIP refuses the addresses kube's Endpoints validation refuses
// (ValidateEndpointIP).
func endpointIP(ip netip.Addr) error {
	switch {
	case ip.IsUnspecified():
		return fmt.Errorf("may not be unspecified (%v)", ip)
	case ip.IsLoopback():
		return errors.New("may not be in the loopback range (127.0.0.0/8, ::1/128)")
	case ip.IsLinkLocalUnicast():
		return errors.New("may not be in the link-local range (169.254.0.0/16, fe80::/10)")
	case ip.IsLinkLocalMulticast():
		return errors.New("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
	}
	return nil
}

// advertised is the endpoint this replica advertises, served at
// servedURL: the advertise address, else the bound address unless it is
// unspecified, else the host's first non-loopback address (kube's
// DefaultAdvertiseAddress). ok is false when nothing is to be advertised.
func advertised(cfg Config, servedURL string) (e endpointlease.Endpoint, ok bool) {
	if cfg.EndpointReconcilerType == EndpointReconcilerNone {
		return e, false
	}
	u, err := url.Parse(servedURL)
	if err != nil {
		return e, false
	}
	bound, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		return e, false
	}
	ip := bound.Addr().Unmap()
	if cfg.AdvertiseAddress != "" {
		ip = netip.MustParseAddr(cfg.AdvertiseAddress).Unmap() // checked by validate
	} else if ip.IsUnspecified() {
		host, err := utilnet.ChooseHostInterface()
		if err != nil {
			cfg.Log.Warn("no host address to advertise in the kubernetes Service; set --advertise-address", "err", err)
			return e, false
		}
		ip, _ = netip.AddrFromSlice(host)
		ip = ip.Unmap()
	}
	if err := endpointIP(ip); err != nil {
		// kube-apiserver would refuse to start; a development stack on
		// loopback instead runs without an endpoint, as with "none".
		cfg.Log.Warn("not advertised in the kubernetes Service's endpoints; set --advertise-address", "address", ip, "reason", err)
		return e, false
	}
	return endpointlease.Endpoint{Address: ip, Port: int32(bound.Port())}, true
}

// leaseKeeper renews this replica's endpoint lease until stopped, and
// then removes it, so the registry drops the endpoint at once instead of
// when the lease lapses (kube's RemoveEndpoints on shutdown).
type leaseKeeper struct {
	client   coordinationclient.LeasesGetter
	endpoint endpointlease.Endpoint
	holder   string
	duration time.Duration
	log      *slog.Logger
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
}

// startLeaseKeeper renews the lease every two thirds of its duration in
// the background.
func startLeaseKeeper(client coordinationclient.LeasesGetter, e endpointlease.Endpoint, d time.Duration, log *slog.Logger) *leaseKeeper {
	host, _ := os.Hostname()
	ctx, cancel := context.WithCancel(context.Background())
	k := &leaseKeeper{
		client: client, endpoint: e, holder: host + "_" + string(uuid.NewUUID()), duration: d,
		log: log.With("endpoint", e.String()), cancel: cancel, done: make(chan struct{}),
	}
	go k.run(ctx)
	return k
}

func (k *leaseKeeper) run(ctx context.Context) {
	defer close(k.done)
	interval := k.duration * 2 / 3
	// Until the first renewal succeeds (kube-system may not exist yet),
	// try again sooner than the interval.
	retry := min(interval, time.Second)
	for {
		wait := interval
		if err := k.renew(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			k.log.Info("renewing the endpoint lease failed; retrying", "err", err)
			wait = retry
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// renew creates the lease or moves its renewTime on, bounded by the
// lease's own duration so a hung call cannot outlast it.
func (k *leaseKeeper) renew(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, k.duration)
	defer cancel()
	leases := k.client.Leases(endpointlease.Namespace)
	name := endpointlease.Name(k.endpoint)
	cur, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, endpointlease.New(k.endpoint, k.holder, k.duration, time.Now()), metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	endpointlease.Renew(cur, k.endpoint, k.holder, k.duration, time.Now())
	_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// stop ends the renewals and deletes the lease if this replica still
// holds it (a replica restarted on the same address may have taken it).
func (k *leaseKeeper) stop() {
	k.once.Do(func() {
		k.cancel()
		<-k.done
		ctx, cancel := context.WithTimeout(context.Background(), leaseRemoveTimeout)
		defer cancel()
		leases := k.client.Leases(endpointlease.Namespace)
		cur, err := leases.Get(ctx, endpointlease.Name(k.endpoint), metav1.GetOptions{})
		if err != nil || cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != k.holder {
			return
		}
		err = leases.Delete(ctx, cur.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{
			UID: &cur.UID, ResourceVersion: &cur.ResourceVersion,
		}})
		if err != nil && !apierrors.IsNotFound(err) {
			k.log.Info("removing the endpoint lease failed; it lapses on its own", "err", err)
		}
	})
}
