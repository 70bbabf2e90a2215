package store

import (
	"errors"
	"reflect"
	"testing"
)

func lvl(w string, q int) StockLevel { return StockLevel{WarehouseID: w, Quantity: q} }

func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []allocationLine
		want  [][]Allocation
		short string // product id of the line that cannot be filled
	}{
		{
			name:  "one warehouse holds every line",
			lines: []allocationLine{{ProductID: "a", Quantity: 2, Stock: []StockLevel{lvl("w1", 5), lvl("w2", 1)}}, {ProductID: "b", Quantity: 1, Stock: []StockLevel{lvl("w1", 1), lvl("w2", 9)}}},
			want:  [][]Allocation{{{"w1", 2}}, {{"w1", 1}}},
		},
		{
			name:  "of two complete warehouses the one holding more wins",
			lines: []allocationLine{{ProductID: "a", Quantity: 1, Stock: []StockLevel{lvl("w1", 1), lvl("w2", 7)}}},
			want:  [][]Allocation{{{"w2", 1}}},
		},
		{
			name:  "equal stock: lowest id",
			lines: []allocationLine{{ProductID: "a", Quantity: 1, Stock: []StockLevel{lvl("w2", 3), lvl("w1", 3)}}},
			want:  [][]Allocation{{{"w1", 1}}},
		},
		{
			name:  "no single warehouse: split, most stock first",
			lines: []allocationLine{{ProductID: "a", Quantity: 6, Stock: []StockLevel{lvl("w1", 2), lvl("w2", 4), lvl("w3", 1)}}},
			want:  [][]Allocation{{{"w2", 4}, {"w1", 2}}},
		},
		{
			name: "lines in different warehouses",
			lines: []allocationLine{
				{ProductID: "a", Quantity: 1, Stock: []StockLevel{lvl("w1", 1)}},
				{ProductID: "b", Quantity: 1, Stock: []StockLevel{lvl("w2", 1), lvl("w1", 0)}},
			},
			want: [][]Allocation{{{"w1", 1}}, {{"w2", 1}}},
		},
		{
			name:  "not enough anywhere",
			lines: []allocationLine{{ProductID: "a", Quantity: 1, Stock: []StockLevel{lvl("w1", 1)}}, {ProductID: "b", Quantity: 5, Stock: []StockLevel{lvl("w1", 2), lvl("w2", 2)}}},
			short: "b",
		},
		{
			name:  "no stock item at all",
			lines: []allocationLine{{ProductID: "a", Quantity: 1}},
			short: "a",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := allocate(tc.lines)
			if tc.short != "" {
				var short *StockShortError
				if !errors.As(err, &short) || short.ProductID != tc.short || !errors.Is(err, ErrInsufficientStock) {
					t.Fatalf("allocate = %v, %v; want short of %s", got, err, tc.short)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("allocate = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestSplitTender(t *testing.T) {
	eur := func(c int64) Money { return Money{c, "EUR"} }
	for _, tc := range []struct {
		name                               string
		subtotal, discount, shipping, gift int64
		want                               Tender
	}{
		{"card only", 1000, 0, 0, 0, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(0), eur(1000)}},
		{"gift card pays part", 1000, 0, 0, 300, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(300), eur(700)}},
		{"gift card pays all", 1000, 0, 0, 5000, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(1000), eur(0)}},
		{"discount then gift then card", 1000, 200, 0, 300, Tender{eur(1000), eur(200), eur(0), eur(800), eur(300), eur(500)}},
		{"discount larger than subtotal", 1000, 1500, 0, 300, Tender{eur(1000), eur(1000), eur(0), eur(0), eur(0), eur(0)}},
		{"negative inputs are zero", 1000, -5, -5, -5, Tender{eur(1000), eur(0), eur(0), eur(1000), eur(0), eur(1000)}},
		// Shipping is not discounted, and the gift card pays it too.
		{"shipping after the discount", 1000, 1500, 490, 0, Tender{eur(1000), eur(1000), eur(490), eur(490), eur(0), eur(490)}},
		{"gift card pays goods and shipping", 1000, 200, 490, 5000, Tender{eur(1000), eur(200), eur(490), eur(1290), eur(1290), eur(0)}},
		{"gift card pays part of shipping", 1000, 0, 490, 1200, Tender{eur(1000), eur(0), eur(490), eur(1490), eur(1200), eur(290)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitTender(eur(tc.subtotal), eur(tc.discount), eur(tc.shipping), eur(tc.gift))
			if got != tc.want {
				t.Fatalf("splitTender = %+v, want %+v", got, tc.want)
			}
			if got.GiftCard.Amount+got.Card.Amount != got.Total.Amount {
				t.Fatal("tenders do not add up to the total")
			}
		})
	}
}

func TestDiscountOff(t *testing.T) {
	eur := func(c int64) Money { return Money{c, "EUR"} }
	for _, tc := range []struct {
		code DiscountCode
		sub  int64
		want int64
	}{
		{DiscountCode{Kind: DiscountPercent, Percent: 10}, 1999, 199},
		{DiscountCode{Kind: DiscountPercent, Percent: 100}, 1999, 1999},
		{DiscountCode{Kind: DiscountFixed, Amount: eur(500)}, 1999, 500},
		{DiscountCode{Kind: DiscountFixed, Amount: eur(5000)}, 1999, 1999},
	} {
		if got := tc.code.Off(eur(tc.sub)); got.Amount != tc.want {
			t.Errorf("%+v off %d = %d, want %d", tc.code, tc.sub, got.Amount, tc.want)
		}
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"1", "99", "100", "0", "-1", " 5 ", "1e2", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseQuantity(s)
		if err == nil && (n < 1 || n > MaxLineQty) {
			t.Fatalf("ParseQuantity(%q) = %d", s, n)
		}
	})
}

func TestParseQuantity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {" 12 ", 12, true}, {"99", 99, true}, {"007", 7, true},
		{"0", 0, false}, {"100", 0, false}, {"-1", 0, false}, {"1.5", 0, false}, {"two", 0, false}, {"", 0, false}, {"+3", 0, false},
	} {
		got, err := ParseQuantity(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseQuantity(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestTotalStock(t *testing.T) {
	for _, c := range []struct {
		levels []StockLevel
		want   int
	}{
		{nil, 0},
		{[]StockLevel{{Quantity: 3}}, 3},
		{[]StockLevel{{Quantity: 3}, {Quantity: 0}, {Quantity: 7}}, 10},
		{[]StockLevel{{Quantity: 4}, {Quantity: -2}}, 4},
	} {
		if got := TotalStock(c.levels); got != c.want {
			t.Errorf("TotalStock(%v) = %d, want %d", c.levels, got, c.want)
		}
	}
}
