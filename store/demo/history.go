package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/store"
	"shop/store/carrier"
	"shop/store/rules"
)

// The demo's history: gift cards and discount codes people can try at
// checkout, more customers, and 60 days of orders placed, shipped and
// delivered at their own times. store.SeedOrders writes them as the
// checkout's transaction and staff's shipping would have (the same item
// builders), in batches, so lists, charts and the books agree; the demo's
// stock is what they left.

// historyMarker marks a table whose demo history is loaded.
const historyMarker = "demo-history-v1"

// HistoryDays is how far back the demo's orders go.
const HistoryDays = 60

// The demo's codes, listed in the README.
const (
	DiscountTenPercent = "FIKA10"      // 10 % off, for a year
	DiscountFiveEuros  = "WELCOME5"    // €5 off, for a year
	DiscountExpired    = "MIDSUMMER25" // 25 % off, expired two weeks ago (past orders used it)
	DiscountUsedUp     = "LAUNCH20"    // 20 % off, three uses, all taken by past orders
	GiftCardBalance    = "FIKA-GIFT-5000"
	GiftCardSpent      = "FIKA-GIFT-SPENT"
)

// Amounts in cents.
const (
	giftCardBalanceAmount = 5000
	giftCardSpentAmount   = 2500
	fiveEuros             = 500
)

// buyer is someone who places the history's orders, and where to.
type buyer struct {
	email, name string
	address     store.Address
}

// shoppers are the history's customers besides the three who can sign in.
// They have no password (no one can sign in as them), like imported
// customers.
var shoppers = []buyer{
	{"elsa.nyberg@shoppers.example", "Elsa Nyberg", store.Address{Street: "Kungsgatan", Number: "8", ZipCode: "75321", City: "Uppsala", County: "Uppsala", Country: "Sweden"}},
	{"oskar.holm@shoppers.example", "Oskar Holm", store.Address{Street: "Storgatan", Number: "31", ZipCode: "90326", City: "Umeå", County: "Västerbotten", Country: "Sweden"}},
	{"maja.ek@shoppers.example", "Maja Ek", store.Address{Street: "Drottninggatan", Number: "14", ZipCode: "58225", City: "Linköping", County: "Östergötland", Country: "Sweden"}},
	{"jonas.lund@shoppers.example", "Jonas Lund", store.Address{Street: "Södra Förstadsgatan", Number: "40", ZipCode: "21143", City: "Malmö", County: "Skåne", Country: "Sweden"}},
	{"amina.yusuf@shoppers.example", "Amina Yusuf", store.Address{Street: "Västra Hamngatan", Number: "3", ZipCode: "41117", City: "Göteborg", County: "Västra Götaland", Country: "Sweden"}},
	{"lars.strom@shoppers.example", "Lars Ström", store.Address{Street: "Rådhusgatan", Number: "6", ZipCode: "83134", City: "Östersund", County: "Jämtland", Country: "Sweden"}},
	{"ingrid.falk@shoppers.example", "Ingrid Falk", store.Address{Street: "Hornsgatan", Number: "72", ZipCode: "11821", City: "Stockholm", County: "Stockholm", Country: "Sweden"}},
	{"mikael.sund@shoppers.example", "Mikael Sund", store.Address{Street: "Kyrkogatan", Number: "19", ZipCode: "65224", City: "Karlstad", County: "Värmland", Country: "Sweden"}},
	{"freja.dahl@shoppers.example", "Freja Dahl", store.Address{Street: "Stortorget", Number: "2", ZipCode: "37134", City: "Karlskrona", County: "Blekinge", Country: "Sweden"}},
	{"nils.berglund@shoppers.example", "Nils Berglund", store.Address{Street: "Sandgatan", Number: "9", ZipCode: "22350", City: "Lund", County: "Skåne", Country: "Sweden"}},
	{"sofia.wikstrom@shoppers.example", "Sofia Wikström", store.Address{Street: "Norra Strandgatan", Number: "25", ZipCode: "97231", City: "Luleå", County: "Norrbotten", Country: "Sweden"}},
	{"erik.sandberg@shoppers.example", "Erik Sandberg", store.Address{Street: "Järntorgsgatan", Number: "5", ZipCode: "70361", City: "Örebro", County: "Örebro", Country: "Sweden"}},
}

// buyers are the history's customers: the three demo customers, then the
// shoppers. Their index is a plannedOrder's customer.
func buyers() []buyer {
	out := []buyer{
		{CustomerEmail, "Ada Lindqvist", store.Address{Street: "Linnégatan", Number: "21", ZipCode: "41304", City: "Göteborg", County: "Västra Götaland", Country: "Sweden"}},
		{"henrik@fikafield.example", "Henrik Berg", store.Address{Street: "Allégatan", Number: "12", ZipCode: "50332", City: "Borås", County: "Västra Götaland", Country: "Sweden"}},
		{"samaneh@fikafield.example", "Samaneh Karimi", store.Address{Street: "Folkungagatan", Number: "88", ZipCode: "11622", City: "Stockholm", County: "Stockholm", Country: "Sweden"}},
	}
	return append(out, shoppers...)
}

const (
	ada     = 0
	samaneh = 2
)

// plannedLine is a line of a past order: a product, how many, and the
// warehouse it left from (indexes into products and warehouses).
type plannedLine struct{ product, qty, warehouse int }

// plannedOrder is a past order as the plan has it: what, who, when (days
// before the load day and the minute of that day in the shop's zone) and
// how it was paid. The plan does not depend on when it is loaded, so what
// it takes from stock is the same every time (historyTaken).
type plannedOrder struct {
	number         string
	customer       int
	daysAgo        int
	minute         int
	lines          []plannedLine
	discount, gift string
}

// adaDays are the days Ada ordered on: delivered, shipped and one waiting.
var adaDays = map[int]bool{52: true, 33: true, 19: true, 6: true, 3: true, 1: true}

// orderPlan is the demo's history: a few orders a day (more on some days of
// the week and more lately, so the charts have a shape), from a fixed seed.
func orderPlan() []plannedOrder {
	r := rand.New(rand.NewPCG(2026, 60))
	byID := map[string]int{}
	var popular []int // product indexes, the likelier ones more often
	for i, p := range products {
		byID[p.id] = i
		n := map[string]int{"coffee": 3, "kitchen": 2, "books": 2, "outdoor": 2, "music": 1}[p.category]
		for range n {
			popular = append(popular, i)
		}
	}
	rhythm := [7]int{0, 1, 0, 1, 2, 3, 1} // a week's rhythm
	number := func() string {
		const alphabet = "23456789ABCDEFGHJKMNPQRSTWXYZ" // the store's order numbers
		b := []byte("FF-")
		for range 6 {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		return string(b)
	}
	var plan []plannedOrder
	launchUses, spentUses := 0, 0
	for d := HistoryDays - 1; d >= 0; d-- {
		n := rhythm[d%7]
		if d < 30 {
			n++
		}
		for k := range n {
			o := plannedOrder{number: number(), daysAgo: d, customer: 3 + r.IntN(len(shoppers)), minute: 7*60 + r.IntN(16*60)}
			if r.IntN(4) == 0 {
				o.customer = 1 + r.IntN(2) // Henrik or Samaneh
			}
			if k == 0 && adaDays[d] {
				o.customer = ada
			}
			lines := 1
			if x := r.IntN(20); x >= 17 {
				lines = 3
			} else if x >= 11 {
				lines = 2
			}
			seen := map[int]bool{}
			for len(o.lines) < lines {
				p := popular[r.IntN(len(popular))]
				if seen[p] {
					continue
				}
				seen[p] = true
				qty := 1
				if x := r.IntN(20); x == 19 {
					qty = 3
				} else if x >= 15 {
					qty = 2
				}
				o.lines = append(o.lines, plannedLine{product: p, qty: qty})
			}
			switch {
			case d >= 50 && launchUses < 3:
				o.discount, launchUses = DiscountUsedUp, launchUses+1
			case d > 14 && d <= 45 && r.IntN(4) == 0:
				o.discount = DiscountExpired
			case r.IntN(7) == 0:
				o.discount = DiscountTenPercent
			case o.customer >= 3 && r.IntN(9) == 0:
				o.discount = DiscountFiveEuros
			}
			// Samaneh spends a gift card over two orders: a book, then
			// the hand grinder, which takes what was left.
			if o.customer == samaneh && d <= 45 && spentUses < 2 {
				o.gift, spentUses = GiftCardSpent, spentUses+1
				o.discount = ""
				first := map[int]int{0: byID["bk-allemans"], 1: byID["cf-grinder"]}[spentUses-1]
				o.lines = []plannedLine{{product: first, qty: 1}}
			}
			allocateLines(o.lines)
			plan = append(plan, o)
		}
	}
	return plan
}

// stocked says whether a warehouse holds a product at all.
func stocked(product, warehouse int) bool { return warehouse == 0 || stockOf(product, warehouse) > 0 }

// allocateLines sends an order from one warehouse that holds every line if
// there is one (the one with most of them), else each line from where most
// of it is: as the checkout's allocation would have, from the stock the
// demo shows today.
func allocateLines(lines []plannedLine) {
	best, bestStock := -1, -1
	for w := range warehouses {
		total := 0
		for _, l := range lines {
			if !stocked(l.product, w) {
				total = -1
				break
			}
			total += stockOf(l.product, w)
		}
		if total > bestStock {
			best, bestStock = w, total
		}
	}
	for i := range lines {
		w := best
		if bestStock < 0 {
			w = 0
			for j := range warehouses {
				if stockOf(lines[i].product, j) > stockOf(lines[i].product, w) {
					w = j
				}
			}
		}
		lines[i].warehouse = w
	}
}

// demoCodes are the demo's gift cards and discount codes as they stood
// before the history's first order.
func demoCodes(now time.Time, loc *time.Location) ([]store.GiftCard, []store.DiscountCode) {
	today := rules.DateOf(now, loc)
	launched := today.AddDate(0, 0, -HistoryDays-1)
	eur := func(cents int64) store.Money { return store.Money{Amount: cents, Currency: store.DefaultCurrency} }
	year := today.AddDate(1, 0, 0)
	gifts := []store.GiftCard{
		{Code: GiftCardBalance, Balance: eur(giftCardBalanceAmount), Initial: eur(giftCardBalanceAmount), CreatedAt: today.AddDate(0, 0, -3)},
		{Code: GiftCardSpent, Balance: eur(giftCardSpentAmount), Initial: eur(giftCardSpentAmount), CreatedAt: launched},
	}
	discounts := []store.DiscountCode{
		{Code: DiscountTenPercent, Kind: store.DiscountPercent, Percent: 10, Amount: eur(0), ExpiresAt: year, UsageLimit: 100_000, CreatedAt: launched},
		{Code: DiscountFiveEuros, Kind: store.DiscountFixed, Amount: eur(fiveEuros), ExpiresAt: year, UsageLimit: 100_000, CreatedAt: launched},
		{Code: DiscountExpired, Kind: store.DiscountPercent, Percent: 25, Amount: eur(0), ExpiresAt: today.AddDate(0, 0, -14), UsageLimit: 1000, CreatedAt: launched},
		{Code: DiscountUsedUp, Kind: store.DiscountPercent, Percent: 20, Amount: eur(0), ExpiresAt: year, UsageLimit: 3, CreatedAt: launched},
	}
	return gifts, discounts
}

// at is the store as of t.
func at(st *store.Store, t time.Time) *store.Store { return st.At(func() time.Time { return t }) }

// placedAt is when a planned order was placed: its minute of its day in the
// shop's zone; today's, if that is still to come, a little before now.
func placedAt(o plannedOrder, today, now time.Time, loc *time.Location, nth int) time.Time {
	day := time.Date(today.Year(), today.Month(), today.Day()-o.daysAgo, 0, 0, 0, 0, loc)
	t := day.Add(time.Duration(o.minute) * time.Minute)
	if limit := now.Add(-time.Duration(nth+1) * 9 * time.Minute); t.After(limit) {
		t = limit
	}
	return t
}

// shipping is how far a past order got by now: shipments made the day
// after it was placed, shipped a few hours later, delivered two or three
// days after; the last day's orders wait, and now and then an older one.
func shipping(o plannedOrder, placed, now time.Time) (made, shipped, delivered time.Time) {
	if o.daysAgo <= 1 || (o.daysAgo <= 4 && o.minute%5 == 0) {
		return
	}
	made = placed.Add(18*time.Hour + time.Duration(o.minute%120)*time.Minute)
	shipped = made.Add(5 * time.Hour)
	if o.daysAgo >= 5 {
		delivered = shipped.Add(time.Duration(44+o.minute%30) * time.Hour)
	}
	for _, t := range []*time.Time{&made, &shipped, &delivered} {
		if t.After(now) {
			*t = time.Time{}
		}
	}
	return
}

// loadHistory writes the history: the shoppers (signed up a while before
// their first order), then the orders with their shipments and the codes
// they used, in one call of SeedOrders.
func loadHistory(ctx context.Context, st *store.Store) error {
	now, loc := st.Now(), st.Location()
	today := rules.DateOf(now, loc)
	plan := orderPlan()
	placed, first := placedTimes(plan, today, now, loc)
	ids, langs, err := demoBuyers(ctx, st, today, first)
	if err != nil {
		return err
	}
	staff, err := demoStaff(ctx, st)
	if err != nil {
		return err
	}
	orders := make([]store.PastOrder, len(plan))
	for i, o := range plan {
		orders[i] = pastOrder(st, o, i, ids[o.customer], langs[o.customer], placed[i], staff, now)
	}
	if err := seedOrders(ctx, st, orders, now); err != nil {
		return err
	}
	if err := st.Mark(ctx, historyMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// placedTimes are when each planned order was placed, and when each
// customer first ordered (by buyer index).
func placedTimes(plan []plannedOrder, today, now time.Time, loc *time.Location) (placed []time.Time, first map[int]time.Time) {
	placed = make([]time.Time, len(plan))
	perDay := map[int]int{}
	first = map[int]time.Time{}
	for i, o := range plan {
		placed[i] = placedAt(o, today, now, loc, perDay[o.daysAgo])
		perDay[o.daysAgo]++
		if _, ok := first[o.customer]; !ok {
			first[o.customer] = placed[i]
		}
	}
	return placed, first
}

// demoBuyers are the buyers' customer ids and languages, by buyer index,
// four at once (see demoBuyer).
func demoBuyers(ctx context.Context, st *store.Store, today time.Time, first map[int]time.Time) (ids, langs []string, err error) {
	ids = make([]string, len(buyers()))
	langs = make([]string, len(buyers()))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, b := range buyers() {
		g.Go(func() (err error) {
			ids[i], langs[i], err = demoBuyer(gctx, st, i, b, today, first)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return ids, langs, nil
}

// demoBuyer is buyer i's customer id and language: the first three are
// the demo accounts, there already; the others sign up a few days before
// their first order (or the history's start), unless they have already.
func demoBuyer(ctx context.Context, st *store.Store, i int, b buyer, today time.Time, first map[int]time.Time) (id, lang string, err error) {
	if i >= 3 {
		since, ok := first[i]
		if !ok {
			since = today.AddDate(0, 0, -HistoryDays)
		}
		c, err := at(st, since.Add(-time.Duration(3+i)*24*time.Hour)).CreateCustomer(ctx, store.NewCustomer{Email: b.email, Name: b.name, Lang: languageOf(b.email)})
		if err == nil {
			return c.ID, c.Lang, nil
		}
		if !errors.Is(err, store.ErrEmailTaken) {
			return "", "", fmt.Errorf("demo shopper %s: %w", b.email, err)
		}
	}
	cred, err := st.CredentialsByEmail(ctx, b.email)
	if err != nil {
		return "", "", fmt.Errorf("demo customer %s: %w", b.email, err)
	}
	// Orders carry the language the customer has, as checkout copies it.
	c, err := st.Customer(ctx, cred.CustomerID)
	if err != nil {
		return "", "", fmt.Errorf("demo customer %s: %w", b.email, err)
	}
	return c.ID, c.Lang, nil
}

// pastOrder is planned order o (the i-th) as the store seeds it: bought
// by its customer (customerID, who speaks lang), placed then, its lines
// from the warehouses planned, shipped and delivered as far as now has
// come, by staff.
func pastOrder(st *store.Store, o plannedOrder, i int, customerID, lang string, placed time.Time, staff store.Customer, now time.Time) store.PastOrder {
	b := buyers()[o.customer]
	past := store.PastOrder{
		Number: o.number, CustomerID: customerID, Buyer: store.Buyer{Name: b.name, Email: b.email, Lang: lang},
		PlacedAt: placed, ShipTo: b.address,
		DiscountCode: o.discount, GiftCardCode: o.gift, Card: &orderCard, ShippingType: "Standard",
		Carrier: "postnord", Tracking: func(parcel int) string { return postNordNumber(i*10 + parcel) }, By: staff,
	}
	past.ShipTo.Name = b.name
	past.ShipmentsAt, past.ShippedAt, past.DeliveredAt = shipping(o, placed, now)
	for _, l := range o.lines {
		p := products[l.product]
		past.Items = append(past.Items, store.OrderItem{
			ProductID: p.id, ProductName: p.name, Names: namesOf(p.id), Price: store.Money{Amount: p.price, Currency: store.DefaultCurrency},
			Quantity: l.qty, Allocations: []store.Allocation{{WarehouseID: warehouses[l.warehouse].ID, Quantity: l.qty}},
			VATRate: st.VATRates().Of(p.category),
		})
	}
	return past
}

// seedOrders writes the history's orders loaded at now (the codes as they
// stood before them), each card part paid on the test provider's page
// when the order was placed.
func seedOrders(ctx context.Context, st *store.Store, orders []store.PastOrder, now time.Time) error {
	pays, err := newPayments(ctx, st)
	if err != nil {
		return err
	}
	gifts, discounts := demoCodes(now, st.Location())
	if _, err := st.SeedPaidOrders(ctx, orders, gifts, discounts, pays.payOrder); err != nil {
		return fmt.Errorf("demo history: %w", err)
	}
	return pays.delivered(ctx)
}

// postNordNumber is a made-up PostNord parcel number, valid as the carrier
// checks it.
func postNordNumber(n int) string { return carrier.S10Number("RR", 10000000+n, "SE") }
