package webhook_test

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs/webhook"
	"shop/store"
)

// Resends racing the deliverer over one event: every resend and every
// attempt is saved (the event's version counts them all), every POST is
// logged, a POST whose save met a resend leaves the event due again, and
// once the resends stop the event ends delivered.
func TestResendRacesTheDeliverer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t)
	hook, err := f.st.CreateWebhook(f.ctx, "partner", "https://partner.example.com:"+rcv.port()+"/hooks", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.New(f.st, webhook.Config{Client: clientFor(rcv), Jitter: func() float64 { return 0 }, Log: quiet})
	f.drop(t, hook.ID)
	ev := f.event(t)

	const resenders, each = 4, 8
	var resent, busy atomic.Int32
	var wg sync.WaitGroup
	stop := make(chan struct{})
	deliverErr := make(chan error, 1)
	go func() { // the deliverer, refusing every other POST, until the resends end
		var n int32
		for {
			n++
			rcv.status.Store(http.StatusOK)
			if n%2 == 0 {
				rcv.status.Store(http.StatusBadGateway)
			}
			f.clock.Set(f.clock.Now().Add(time.Minute)) // every retry is due
			if _, _, err := d.DeliverDue(f.ctx); err != nil {
				deliverErr <- err
				return
			}
			select {
			case <-stop:
				deliverErr <- nil
				return
			default:
			}
		}
	}()
	for range resenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				time.Sleep(time.Duration(i%3) * time.Millisecond)
				_, err := f.st.ResendWebhookEvent(f.ctx, "partner", hook.ID, ev.ID)
				switch {
				case errors.Is(err, store.ErrConflict):
					busy.Add(1)
				case err != nil:
					t.Error(err)
					return
				default:
					resent.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-deliverErr; err != nil {
		t.Fatalf("the deliverer: %v", err)
	}
	rcv.status.Store(http.StatusOK)
	f.clock.Set(f.clock.Now().Add(time.Minute))
	if _, _, err := d.DeliverDue(f.ctx); err != nil {
		t.Fatal(err)
	}

	final, err := f.st.WebhookEvent(f.ctx, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	log, err := f.st.WebhookAttempts(f.ctx, hook.ID, 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	posts := len(rcv.received())
	merged := 0 // answered 2xx, but a resend saved meanwhile: due again
	for _, a := range log.Items {
		if a.Status == http.StatusOK && a.State == store.DeliveryPending {
			merged++
		}
	}
	t.Logf("%d resends saved, %d gave up busy, %d POSTs, %d met a resend", resent.Load(), busy.Load(), posts, merged)
	if resent.Load() < resenders*each/2 {
		t.Fatalf("only %d of %d resends saved", resent.Load(), resenders*each)
	}
	if len(log.Items) != posts {
		t.Fatalf("%d attempts logged for %d POSTs", len(log.Items), posts)
	}
	if want := int(resent.Load()) + posts; final.Version != want {
		t.Fatalf("version %d, want %d (resends and attempts)", final.Version, want)
	}
	if dl := final.Deliveries[hook.ID]; dl.Status != store.DeliveryDelivered {
		t.Fatalf("ended %+v", dl)
	}
}
