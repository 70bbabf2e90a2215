package store

import (
	"errors"
	"fmt"
	"testing"
)

func lvl(w string, q int) StockLevel { return StockLevel{WarehouseID: w, Quantity: q} }

// allocateOrder is rules.AllocateAtMost at MaxLineWarehouses, its
// shortage the line's StockShortError, naming the product as the shop
// words it (the allocation itself is tested in package rules).
func TestAllocateOrderRefusesTheShortLine(t *testing.T) {
	named := func(lines []allocationLine) []allocationLine {
		for i := range lines {
			lines[i].ProductName = "Product " + lines[i].ProductID
			lines[i].Names = ProductNames{"ko": "상품 " + lines[i].ProductID}
		}
		return lines
	}
	for _, tc := range []struct {
		name              string
		lines             []allocationLine
		want              string // the allocation, when it fills
		short             string // product id of the line that cannot be filled
		wanted, available int
	}{
		{
			name:  "filled",
			lines: []allocationLine{{ProductID: "a", Quantity: 6, Stock: []StockLevel{lvl("w1", 2), lvl("w2", 4), lvl("w3", 1)}}},
			want:  "[[{w2 4} {w1 2}]]",
		},
		{
			name:  "not enough anywhere",
			lines: []allocationLine{{ProductID: "a", Quantity: 1, Stock: []StockLevel{lvl("w1", 1)}}, {ProductID: "b", Quantity: 5, Stock: []StockLevel{lvl("w1", 2), lvl("w2", 2)}}},
			short: "b", wanted: 5, available: 4,
		},
		{
			name:  "no stock item at all",
			lines: []allocationLine{{ProductID: "a", Quantity: 1}},
			short: "a", wanted: 1, available: 0,
		},
		{
			name: "a line needing more than MaxLineWarehouses: short by what they hold",
			lines: []allocationLine{{ProductID: "a", Quantity: 60,
				Stock: []StockLevel{lvl("w1", 10), lvl("w2", 10), lvl("w3", 10), lvl("w4", 10), lvl("w5", 10), lvl("w6", 10), lvl("w7", 10), lvl("w8", 10)}}},
			short: "a", wanted: 60, available: 4 * 10,
		},
		{
			name: "a line needing a fifth warehouse",
			lines: []allocationLine{{ProductID: "a", Quantity: 11,
				Stock: []StockLevel{lvl("w1", 1), lvl("w2", 2), lvl("w3", 3), lvl("w4", 4), lvl("w5", 1)}}},
			short: "a", wanted: 11, available: 10,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := named(tc.lines)
			got, err := allocateOrder(lines)
			if tc.short == "" {
				if err != nil || fmt.Sprint(got) != tc.want {
					t.Fatalf("allocateOrder = %v, %v; want %s", got, err, tc.want)
				}
				return
			}
			var short *StockShortError
			if !errors.As(err, &short) || short.ProductID != tc.short || !errors.Is(err, ErrInsufficientStock) ||
				short.ProductName != "Product "+tc.short || short.Names["ko"] != "상품 "+tc.short || short.Wanted != tc.wanted || short.Available != tc.available {
				t.Fatalf("allocateOrder = %v, %+v; want short of %s, %d of %d", got, err, tc.short, tc.available, tc.wanted)
			}
		})
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
