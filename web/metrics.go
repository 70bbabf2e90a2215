package web

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"shop/store"
)

// Metrics are the shop's Prometheus metrics: requests by route and status
// with latency, and DynamoDB operations with their consumed capacity.
type Metrics struct {
	registry       *prometheus.Registry
	httpRequests   *prometheus.CounterVec
	httpDuration   *prometheus.HistogramVec
	dynamoRequests *prometheus.CounterVec
	dynamoDuration *prometheus.HistogramVec
	dynamoCapacity *prometheus.CounterVec
	dynamoThrottle *prometheus.CounterVec
	visitorPages   *prometheus.CounterVec
	httpSeries     sync.Map // httpSeries → httpObservers
}

// NewMetrics registers the shop's metrics and the Go runtime's.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shop_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "shop_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		dynamoRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shop_dynamodb_requests_total", Help: "DynamoDB operations by name and outcome.",
		}, []string{"operation", "outcome"}),
		dynamoDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "shop_dynamodb_request_duration_seconds", Help: "DynamoDB operation latency, retries included.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"operation"}),
		dynamoCapacity: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shop_dynamodb_consumed_capacity_units_total", Help: "Capacity units DynamoDB reported as consumed.",
		}, []string{"operation"}),
		dynamoThrottle: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shop_dynamodb_throttled_total", Help: "DynamoDB attempts throttled (each retry counts).",
		}, []string{"operation"}),
		visitorPages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shop_visitor_pages_total", Help: "Sessionless visitors' catalogue, search and product pages: kept (served as kept) or rendered.",
		}, []string{"answer"}),
	}
	m.registry.MustRegister(m.httpRequests, m.httpDuration, m.dynamoRequests, m.dynamoDuration, m.dynamoCapacity, m.dynamoThrottle, m.visitorPages,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveDynamoDB implements store.Observer.
func (m *Metrics) ObserveDynamoDB(op string, took time.Duration, c store.Capacity, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.dynamoRequests.WithLabelValues(op, outcome).Inc()
	m.dynamoDuration.WithLabelValues(op).Observe(took.Seconds())
	if c.Total > 0 {
		m.dynamoCapacity.WithLabelValues(op).Add(c.Total)
	}
}

var _ store.ThrottleObserver = (*Metrics)(nil)

// ObserveThrottle implements store.ThrottleObserver.
func (m *Metrics) ObserveThrottle(op string) { m.dynamoThrottle.WithLabelValues(op).Inc() }

func (m *Metrics) observeHTTP(route, method string, status int, took time.Duration) {
	key := httpSeries{route, method, status}
	s, ok := m.httpSeries.Load(key)
	if !ok {
		s, _ = m.httpSeries.LoadOrStore(key, httpObservers{
			requests: m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)),
			duration: m.httpDuration.WithLabelValues(route, method),
		})
	}
	o := s.(httpObservers)
	o.requests.Inc()
	o.duration.Observe(took.Seconds())
}

// httpSeries names a request's metric series; httpObservers are its
// counter and histogram, found once (a label lookup hashes every value
// under a lock on every request). Routes, methods and statuses are few:
// unknown paths count as "unmatched".
type httpSeries struct {
	route, method string
	status        int
}

type httpObservers struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (m *Metrics) handler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
}
