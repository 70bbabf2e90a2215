package store

import (
	"errors"
	"fmt"

	"shop/store/rules"
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

// allocationLine is one order line with the stock that could fill it, and
// the product's names for a StockShortError.
type allocationLine struct {
	ProductID   string
	ProductName string
	Names       ProductNames
	Quantity    int
	Stock       []StockLevel
}

// allocateOrder decides which warehouses each line leaves from, at most
// MaxLineWarehouses per line (rules.AllocateAtMost). A line that cannot be
// filled is a *StockShortError naming its product.
func allocateOrder(lines []allocationLine) ([][]Allocation, error) {
	in := make([]rules.AllocationLine, len(lines))
	for i, l := range lines {
		in[i] = rules.AllocationLine{ProductID: l.ProductID, Quantity: l.Quantity, Stock: holdings(l.Stock)}
	}
	out, err := rules.AllocateAtMost(in, MaxLineWarehouses)
	var short *rules.Shortage
	if errors.As(err, &short) {
		l := lines[short.Line]
		return nil, &StockShortError{ProductID: l.ProductID, ProductName: l.ProductName, Names: l.Names, Wanted: short.Wanted, Available: short.Available}
	}
	return out, err
}

// holdings are the warehouses' stock levels as the allocation reads them.
func holdings(levels []StockLevel) []rules.Holding {
	out := make([]rules.Holding, len(levels))
	for i, l := range levels {
		out[i] = rules.Holding{WarehouseID: l.WarehouseID, Quantity: l.Quantity}
	}
	return out
}
