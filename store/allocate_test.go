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

func TestDiscountOff(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
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
