package store

import (
	"cmp"
	"fmt"
	"slices"
)

// StockShortError says which line of an order cannot be filled and how many
// are left; errors.Is(err, ErrInsufficientStock) holds.
type StockShortError struct {
	ProductID   string
	ProductName string
	Names       ProductNames // the name in the shop's other languages, for the customer's message
	Wanted      int
	Available   int
}

func (e *StockShortError) Error() string {
	if e.Available == 0 {
		return fmt.Sprintf("%s is out of stock", e.ProductName)
	}
	return fmt.Sprintf("only %d of %s left (wanted %d)", e.Available, e.ProductName, e.Wanted)
}

func (e *StockShortError) Is(target error) bool { return target == ErrInsufficientStock }

// Refusal says the shortage in the catalogue's words, the product named in
// the reader's language.
func (e *StockShortError) Refusal() *Refusal {
	name := LocalName{English: e.ProductName, Names: e.Names}
	if e.Available == 0 {
		return &Refusal{Kind: Conflict, Message: "cart.stock.out", Args: []any{"Product", name}, Words: e.Error()}
	}
	return &Refusal{Kind: Conflict, Message: "cart.stock.short", Args: []any{"Product", name, "Available", e.Available, "Wanted", e.Wanted}, Words: e.Error()}
}

// allocationLine is one order line with the stock that could fill it.
type allocationLine struct {
	ProductID   string
	ProductName string
	Names       ProductNames
	Quantity    int
	Stock       []StockLevel
}

// allocate decides which warehouses each line leaves from. One warehouse
// that holds every line is preferred (one parcel); of several, the one with
// the most stock of the lines, then the lowest id. Otherwise each line is
// split across warehouses, most stock first. A line that cannot be filled is
// a *StockShortError.
func allocate(lines []allocationLine) ([][]Allocation, error) {
	for _, l := range lines {
		total := 0
		for _, s := range l.Stock {
			total += max(s.Quantity, 0)
		}
		if total < l.Quantity {
			return nil, &StockShortError{ProductID: l.ProductID, ProductName: l.ProductName, Names: l.Names, Wanted: l.Quantity, Available: total}
		}
	}
	if w := singleWarehouse(lines); w != "" {
		out := make([][]Allocation, len(lines))
		for i, l := range lines {
			out[i] = []Allocation{{WarehouseID: w, Quantity: l.Quantity}}
		}
		return out, nil
	}
	out := make([][]Allocation, len(lines))
	for i, l := range lines {
		stock := slices.Clone(l.Stock)
		slices.SortFunc(stock, func(a, b StockLevel) int {
			return cmp.Or(cmp.Compare(b.Quantity, a.Quantity), cmp.Compare(a.WarehouseID, b.WarehouseID))
		})
		need := l.Quantity
		for _, s := range stock {
			if need == 0 {
				break
			}
			take := min(need, s.Quantity)
			if take <= 0 {
				continue
			}
			out[i] = append(out[i], Allocation{WarehouseID: s.WarehouseID, Quantity: take})
			need -= take
		}
	}
	return out, nil
}

func singleWarehouse(lines []allocationLine) string {
	covers := map[string]int{} // warehouse -> lines it can fill alone
	held := map[string]int{}   // warehouse -> units of these lines it holds
	for _, l := range lines {
		for _, s := range l.Stock {
			if s.Quantity >= l.Quantity {
				covers[s.WarehouseID]++
			}
			held[s.WarehouseID] += max(s.Quantity, 0)
		}
	}
	best := ""
	for w, n := range covers {
		if n != len(lines) {
			continue
		}
		if best == "" || held[w] > held[best] || (held[w] == held[best] && w < best) {
			best = w
		}
	}
	return best
}
