package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

func TestParseReturnNumber(t *testing.T) {
	for _, c := range []struct {
		in    string
		order string
		n     int
		ok    bool
	}{
		{"FF-T9PSJN-R1", "FF-T9PSJN", 1, true},
		{"FF-T9PSJN-R12", "FF-T9PSJN", 12, true},
		{"FF-R9PSJN-R2", "FF-R9PSJN", 2, true},
		{"FF-T9PSJN", "", 0, false},
		{"FF-T9PSJN-R0", "", 0, false},
		{"FF-T9PSJN-R01", "", 0, false},
		{"FF-T9PSJN-R-1", "", 0, false},
		{"FF-T9PSJN-R", "", 0, false},
		{"-R1", "", 0, false},
		{"", "", 0, false},
		{"FF-T9PSJN-R1x", "", 0, false},
	} {
		order, n, ok := store.ParseReturnNumber(c.in)
		if order != c.order || n != c.n || ok != c.ok {
			t.Errorf("ParseReturnNumber(%q) = %q, %d, %v; want %q, %d, %v", c.in, order, n, ok, c.order, c.n, c.ok)
		}
	}
}

// Whatever is typed, a number that parses is one ReturnNumber makes.
func FuzzParseReturnNumber(f *testing.F) {
	for _, s := range []string{"FF-T9PSJN-R1", "FF-T9PSJN-R99", "x-R", "-R1", "FF-R-R2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		order, n, ok := store.ParseReturnNumber(s)
		if ok && store.ReturnNumber(order, n) != s {
			t.Fatalf("%q parsed as %q and %d, which make %q", s, order, n, store.ReturnNumber(order, n))
		}
	})
}

func mailFor(rs []store.Return) *store.Mail {
	subject, text := "Return", "Send it to"
	for _, r := range rs {
		subject += " " + r.Number
		text += " " + r.SendTo.Name
	}
	return &store.Mail{To: "c@example.com", Kind: store.MailReturnRequested, Subject: subject,
		Text: text, CustomerID: rs[0].CustomerID, CreatedAt: rs[0].RequestedAt, Status: store.MailPending}
}

// A return is numbered after its order, goes to the warehouse that shipped
// it, and its mail (with the number and the address) is in the outbox with
// it; staff find it by the number as typed from a parcel. Returns asked
// before numbers existed are numbered by their place, and the next one
// follows them.
func TestReturnNumberAddressAndMail(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {-1, 20}}, 1200, store.WithClock(clock.Now))
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "k1", 5)

	ask := askA(1)
	ask.Mail = mailFor
	f.env.Counter.Reset()
	r1, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", ask))
	if err != nil {
		t.Fatal(err)
	}
	// The order, the warehouse, the write; and the account's address, as
	// this order (like those from before orders kept their buyer) has none.
	if ops := f.env.Counter.Ops(); ops["Query"] != 1 || ops["GetItem"] != 2 || ops["TransactWriteItems"] != 1 || f.env.Counter.Total() != 4 {
		t.Errorf("asking for a return took %v, want a Query, two GetItems and a TransactWriteItems", ops)
	}
	if want := d.Order.Label() + "-R1"; r1.Number != want {
		t.Errorf("first return numbered %q, want %q", r1.Number, want)
	}
	if r1.SendTo.ID != "w2" || r1.SendTo.Name != "Warehouse w2" || r1.SendTo.Address.City != "w2" {
		t.Errorf("send to %+v, want the warehouse that shipped it (w2)", r1.SendTo)
	}
	m, err := st.Mail(ctx, store.ReturnRequestedMailID(r1.ID))
	if err != nil || m.Kind != store.MailReturnRequested || m.Subject != "Return "+r1.Number || m.Text != "Send it to Warehouse w2" {
		t.Fatalf("the return's mail: %+v, %v", m, err)
	}
	// Without a mail maker nothing is mailed (store tests, imports).
	r2, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", askA(1)))
	if err != nil || r2.Number != d.Order.Label()+"-R2" {
		t.Fatalf("second return %q: %v", r2.Number, err)
	}
	if _, err := st.Mail(ctx, store.ReturnRequestedMailID(r2.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a return asked without a mail maker mailed: %v", err)
	}
	got, err := st.ReturnByNumber(ctx, "  "+d.Order.Label()+"-r2 ")
	if err != nil || got.ID != r2.ID {
		t.Fatalf("found %+v by its number: %v", got, err)
	}
	for _, bad := range []string{d.Order.Label() + "-R3", d.Order.Label(), "FF-NOSUCH-R1", "", "R1"} {
		if _, err := st.ReturnByNumber(ctx, bad); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ReturnByNumber(%q): %v, want not found", bad, err)
		}
	}

	// The first return as an older version wrote it: no number, no address.
	var old []map[string]types.AttributeValue
	for _, it := range f.env.Items(t) {
		if sk, _ := it["SK"].(*types.AttributeValueMemberS); sk != nil && sk.Value == "ret#"+r1.ID {
			for _, a := range []string{"Number", "SendToID", "SendToName", "SendTo"} {
				delete(it, a)
			}
			old = append(old, it)
		}
	}
	if len(old) != 1 {
		t.Fatalf("%d items of the first return", len(old))
	}
	f.env.PutItems(t, old)
	r3, err := one(t)(st.RequestReturn(ctx, d.Order.ID, "c", askA(1)))
	if err != nil || r3.Number != d.Order.Label()+"-R3" {
		t.Fatalf("third return %q: %v", r3.Number, err)
	}
	d, err = st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for _, r := range d.Returns {
		numbers = append(numbers, r.Number)
	}
	if want := []string{r1.Number, r2.Number, r3.Number}; !slices.Equal(numbers, want) {
		t.Fatalf("the order's returns are numbered %v, want %v", numbers, want)
	}
}

// Returns asked at once each get a number of their own, and the numbers
// run from R1 without a gap.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out the
// lock waits of a race like this one.
func TestReturnNumbersRace(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 0)
	f := newFixture(t, map[string][2]int{"a": {20, -1}}, 1200, store.WithClock(clock.Now))
	st, ctx := f.env.Store, ctxT(t)
	d := deliveredOrder(t, f, "k1", 12)
	const askers = 6
	var wg sync.WaitGroup
	got := make([]store.Return, askers)
	errs := make([]error, askers)
	start := make(chan struct{})
	for i := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ask := askA(1)
			ask.Mail = mailFor
			var rs []store.Return
			if rs, errs[i] = st.RequestReturn(ctx, d.Order.ID, "c", ask); len(rs) == 1 {
				got[i] = rs[0]
			} else if errs[i] == nil {
				errs[i] = fmt.Errorf("%d returns of units from one warehouse", len(rs))
			}
		}()
	}
	close(start)
	wg.Wait()
	written := map[string]bool{}
	for i, err := range errs {
		switch {
		case err == nil:
			if written[got[i].Number] {
				t.Errorf("number %s given twice", got[i].Number)
			}
			written[got[i].Number] = true
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("unexpected: %v", err)
		}
	}
	d, err := st.OrderDetails(ctx, d.Order.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Returns) != len(written) {
		t.Fatalf("%d returns written, %d answered", len(d.Returns), len(written))
	}
	for i, r := range d.Returns {
		if _, err := st.Mail(ctx, store.ReturnRequestedMailID(r.ID)); err != nil {
			t.Errorf("return %s: its mail: %v", r.Number, err)
		}
		if want := store.ReturnNumber(d.Order.Label(), i+1); r.Number != want || !written[want] {
			t.Errorf("return %d is %s, want %s", i+1, r.Number, want)
		}
	}
	if len(written) < 2 {
		t.Errorf("only %d of %d asks went through: a lost number race should read again and take the next", len(written), askers)
	}
}
