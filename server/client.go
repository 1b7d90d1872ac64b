package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/hearth-rpg/hearth/auth"
)

// parseProxies reads server.trusted_proxies: CIDRs, or single addresses.
func parseProxies(list []string) ([]netip.Prefix, error) {
	var ps []netip.Prefix
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("server: trusted proxy %q is neither a CIDR nor an address", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		ps = append(ps, p.Masked())
	}
	return ps, nil
}

// clientAddress names the client of each request on its context (see
// auth.WithClient) for the wrong-secret throttle: the peer, or, when the
// peer is a trusted proxy, the address it forwarded for.
func (s *Server) clientAddress(next http.Handler) http.Handler {
	if len(s.proxies) == 0 {
		return next // Require falls back to the peer
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := clientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), s.proxies)
		next.ServeHTTP(w, r.WithContext(auth.WithClient(r.Context(), c)))
	})
}

// clientAddr is the peer's address, unless the peer is a trusted proxy:
// then X-Forwarded-For is read from the right, each hop a trusted proxy
// appended, and the first address not itself a trusted proxy is the
// client. Addresses further left were written by the client and prove
// nothing, so the walk never goes past it, nor past an entry that is not
// an address.
func clientAddr(remote string, forwarded []string, trusted []netip.Prefix) string {
	peer, ok := parseHop(remote)
	if !ok {
		if host, _, err := net.SplitHostPort(remote); err == nil {
			return host
		}
		return remote
	}
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	client := peer
	var hops []string
	for _, h := range forwarded {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0 && isTrusted(client); i-- {
		a, ok := parseHop(strings.TrimSpace(hops[i]))
		if !ok {
			break
		}
		client = a
	}
	return client.String()
}

// parseHop reads an address as X-Forwarded-For or RemoteAddr write it:
// bare, with a port, or bracketed IPv6 with a port.
func parseHop(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}
