// Package demo loads the demo shop: warehouses in four Swedish cities, a
// catalogue in five categories with stock (the coffee beans and filters
// also by subscription), one staff member (the shop's owner) and a few customers with
// subscriptions and their receipts, drops, gift cards and discount codes to
// try, and 60 days of past orders (history.go). Loading is idempotent and
// happens once per table; what came later (subscriptions, drops, the
// history) is loaded once more onto a table that has the rest.
package demo

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
)

// Accounts printed at start-up so a new user can sign in.
const (
	StaffEmail       = "staff@fikafield.example"
	StaffPassword    = "staff-demo-password"
	CustomerEmail    = "ada@fikafield.example"
	CustomerPassword = "customer-demo-password"
)

const (
	marker              = "demo-data-v1"
	subscriptionsMarker = "demo-subscriptions-v1"
	// The staff member became the owner later: a table loaded before
	// gets it made on the next load too.
	ownerMarker = "demo-owner-v1"
)

// monthlyPrices are the products one can subscribe to, in cents a month.
var monthlyPrices = map[string]int64{
	"cf-gbg-dark": 1190,
	"cf-light":    1290,
	"cf-espresso": 2290,
	"cf-decaf":    790,
	"cf-filters":  450,
}

type product struct {
	id, name, category, description string
	price                           int64 // cents
}

var categories = []store.Category{
	{Slug: "books", Name: "Books", Description: "Novels, cookbooks and guides to the outdoors."},
	{Slug: "coffee", Name: "Coffee", Description: "Beans roasted in Göteborg, and what you need to brew them."},
	{Slug: "kitchen", Name: "Kitchen", Description: "Things for the table and the stove."},
	{Slug: "music", Name: "Music", Description: "Records and CDs from Nordic artists."},
	{Slug: "outdoor", Name: "Outdoor", Description: "Gear for the forest, the archipelago and the fells."},
}

var products = []product{
	{"bk-fjord", "Fjord Stories", "books", "Twelve short stories set along the west coast, one for each month of the year.", 1990},
	{"bk-cinnamon", "The Cinnamon Bun Book", "books", "Forty bakes for fika, from kanelbullar to semlor, with weights in grams.", 2490},
	{"bk-allemans", "Right to Roam", "books", "A field guide to Sweden's allemansrätten: where you may walk, camp and pick.", 1590},
	{"bk-lighthouse", "The Last Lighthouse Keeper", "books", "A novel about a winter on a skerry north of Marstrand.", 2190},
	{"bk-foraging", "Foraging the North", "books", "Mushrooms, berries and herbs of Nordic forests, with clear photographs.", 2790},
	{"bk-knots", "Knots for Sailors", "books", "Forty knots, step by step, in a spiral binding that lies flat on deck.", 1290},
	{"bk-fika", "Fika at Home", "books", "The Swedish coffee break, explained and baked.", 1990},
	{"cf-gbg-dark", "Göteborg Dark Roast 500 g", "coffee", "Full-bodied, with notes of cocoa and toasted nuts. Whole beans.", 1290},
	{"cf-light", "Archipelago Light Roast 500 g", "coffee", "Bright and floral, roasted for filter brewing. Whole beans.", 1390},
	{"cf-espresso", "Harbour Espresso 1 kg", "coffee", "A blend for espresso machines, smooth in milk.", 2490},
	{"cf-decaf", "Midnight Decaf 250 g", "coffee", "Swiss-water decaffeinated Colombian, for late fika.", 890},
	{"cf-grinder", "Hand Grinder", "coffee", "Steel burrs, 40 grind settings, folds into a travel pouch.", 5490},
	{"cf-pourover", "Pour-over Dripper", "coffee", "Ceramic dripper for size 02 filters.", 2290},
	{"cf-filters", "Paper Filters 02 (100)", "coffee", "Unbleached paper filters.", 490},
	{"kt-mug", "Stoneware Mug", "kitchen", "Hand-glazed in Höganäs, 300 ml.", 1890},
	{"kt-board", "Birch Cutting Board", "kitchen", "Solid birch from Småland, oiled.", 3490},
	{"kt-kettle", "Gooseneck Kettle", "kitchen", "1 litre, with a thermometer in the lid.", 4490},
	{"kt-tin", "Coffee Tin", "kitchen", "Air-tight tin for 500 g of beans.", 1490},
	{"kt-towel", "Linen Tea Towel", "kitchen", "Woven linen from Borås, grey stripe.", 990},
	{"kt-thermos", "Steel Thermos 0.75 l", "kitchen", "Keeps coffee hot for twelve hours.", 2990},
	{"kt-butter", "Butter Knife Set", "kitchen", "Four juniper-wood butter knives.", 1690},
	{"mu-fjall", "Fjäll – Live in Kiruna (LP)", "music", "A folk trio recorded in one night under the midnight sun.", 2990},
	{"mu-harbour", "Harbour Lights (CD)", "music", "Accordion and strings from Göteborg's harbour festival.", 1490},
	{"mu-nyckel", "Nyckelharpa Sessions (LP)", "music", "Traditional tunes on the keyed fiddle.", 2790},
	{"mu-winter", "Winter Songs (CD)", "music", "A choir from Uppsala sings the darkest months.", 1390},
	{"mu-jazz", "Stockholm Jazz Nights (LP)", "music", "A double album recorded at a small club in Södermalm.", 3490},
	{"mu-sea", "Songs of the Sea (CD)", "music", "Sea shanties and ballads from the west coast.", 1290},
	{"od-kasa", "Wooden Kåsa Cup", "outdoor", "Carved birch cup, the traditional drinking cup of the fells.", 2490},
	{"od-knife", "Mora Bushcraft Knife", "outdoor", "Carbon-steel blade, sheath included.", 3990},
	{"od-pad", "Sitting Pad", "outdoor", "Foam pad that keeps you dry on a cold rock.", 590},
	{"od-stove", "Alcohol Stove", "outdoor", "Brass spirit burner with a wind shield.", 4490},
	{"od-lantern", "Candle Lantern", "outdoor", "Folding lantern for long autumn evenings.", 2290},
	{"od-hammock", "Forest Hammock", "outdoor", "Parachute nylon, straps included, 600 g.", 4990},
	{"od-socks", "Wool Hiking Socks", "outdoor", "Merino socks from Jämtland, two pairs.", 1990},
}

var warehouses = []store.Warehouse{
	{ID: "gbg", Name: "Göteborg Harbour", Address: store.Address{Street: "Hamngatan", Number: "12", ZipCode: "41111", City: "Göteborg", County: "Västra Götaland", Country: "Sweden"}},
	{ID: "bor", Name: "Borås Textile Hall", Address: store.Address{Street: "Åsbogatan", Number: "5", ZipCode: "50330", City: "Borås", County: "Västra Götaland", Country: "Sweden"}},
	{ID: "sto", Name: "Stockholm Södra", Address: store.Address{Street: "Götgatan", Number: "48", ZipCode: "11826", City: "Stockholm", County: "Stockholm", Country: "Sweden"}},
	{ID: "mmo", Name: "Malmö Docks", Address: store.Address{Street: "Stora Varvsgatan", Number: "11", ZipCode: "21119", City: "Malmö", County: "Skåne", Country: "Sweden"}},
}

var customers = []struct{ email, name, password string }{
	{CustomerEmail, "Ada Lindqvist", CustomerPassword},
	{"henrik@fikafield.example", "Henrik Berg", "customer-demo-password"},
	{"samaneh@fikafield.example", "Samaneh Karimi", "customer-demo-password"},
}

// languageOf is the language a demo customer reads the shop in, which
// their mail, subscriptions and orders carry: Samaneh reads it in
// Indonesian (her pages and the reminder the demo has due today), the
// others in English.
func languageOf(email string) string {
	if email == "samaneh@fikafield.example" {
		return "id"
	}
	return "en"
}

// stockOf spreads stock over the warehouses in a fixed but uneven pattern,
// so some products are in one warehouse only and a few are nearly gone.
func stockOf(productIndex, warehouseIndex int) int {
	n := (productIndex*7 + warehouseIndex*13) % 23
	if (productIndex+warehouseIndex)%3 == 0 {
		return 0
	}
	return n
}

// Present says whether the demo shop was loaded into this table (its
// published passwords and made-up orders are there): a live payment
// provider is refused on such a table.
func Present(ctx context.Context, st *store.Store) (bool, error) { return st.Marked(ctx, marker) }

// Load writes the demo shop unless this table already has it.
func Load(ctx context.Context, st *store.Store, bcryptCost int) (loaded bool, err error) {
	done, err := st.Marked(ctx, marker)
	if err != nil {
		return false, err
	}
	if !done {
		if err := loadShop(ctx, st, bcryptCost); err != nil {
			return false, err
		}
		loaded = true
	}
	done, err = st.Marked(ctx, subscriptionsMarker)
	if err != nil {
		return loaded, err
	}
	if !done {
		if err := loadSubscriptions(ctx, st); err != nil {
			return loaded, err
		}
		loaded = true
	}
	done, err = st.Marked(ctx, ownerMarker)
	if err != nil {
		return loaded, err
	}
	if !done {
		if err := makeOwner(ctx, st); err != nil {
			return loaded, err
		}
		loaded = true
	}
	// Steps added later, each once per table: a table loaded before gets
	// them on its next load.
	for _, step := range []struct {
		marker string
		load   func(context.Context, *store.Store) error
	}{{dropsMarker, loadDrops}, {historyMarker, loadHistory}, {refundsMarker, loadRefunds}, {sellerMarker, loadSeller}} {
		done, err = st.Marked(ctx, step.marker)
		if err != nil {
			return loaded, err
		}
		if done {
			continue
		}
		if err := step.load(ctx, st); err != nil {
			return loaded, err
		}
		loaded = true
	}
	return loaded, nil
}

// makeOwner makes the demo's staff member the shop's owner, who can make
// others staff in the console.
func makeOwner(ctx context.Context, st *store.Store) error {
	cred, err := st.CredentialsByEmail(ctx, StaffEmail)
	if err != nil {
		return fmt.Errorf("demo owner: %w", err)
	}
	if _, _, err := st.MakeOwner(ctx, cred.CustomerID); err != nil && !errors.Is(err, store.ErrNoChange) {
		return fmt.Errorf("demo owner: %w", err)
	}
	if err := st.Mark(ctx, ownerMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

func loadShop(ctx context.Context, st *store.Store, bcryptCost int) error {
	for _, c := range categories {
		if err := st.PutCategory(ctx, c); err != nil {
			return err
		}
	}
	for _, w := range warehouses {
		if err := st.PutWarehouse(ctx, w); err != nil {
			return err
		}
	}
	for i, p := range products {
		monthly, subscribable := monthlyPrices[p.id]
		if err := st.PutProduct(ctx, store.Product{
			ID: p.id, Name: p.name, Category: p.category, Description: p.description,
			Price:        store.Money{Amount: p.price, Currency: store.DefaultCurrency},
			Subscribable: subscribable, MonthlyPrice: store.Money{Amount: monthly, Currency: store.DefaultCurrency},
			Texts: productTexts[p.id],
		}); err != nil {
			return err
		}
		for j, w := range warehouses {
			if !stocked(i, j) {
				continue // not stocked there at all
			}
			if err := st.PutStockLevel(ctx, store.StockLevel{
				ProductID: p.id, ProductName: p.name, WarehouseID: w.ID, WarehouseName: w.Name, City: w.Address.City, Quantity: stockOf(i, j),
			}); err != nil {
				return err
			}
		}
	}
	people := append([]struct{ email, name, password string }{{StaffEmail, "Sam Staff", StaffPassword}}, customers...)
	for i, p := range people {
		hash, err := bcrypt.GenerateFromPassword([]byte(p.password), bcryptCost)
		if err != nil {
			return err
		}
		role := store.RoleCustomer
		if i == 0 {
			role = store.RoleStaff
		}
		_, err = st.CreateCustomer(ctx, store.NewCustomer{Email: p.email, Name: p.name, PasswordHash: string(hash), Role: role, Lang: languageOf(p.email)})
		if err != nil && !errors.Is(err, store.ErrEmailTaken) {
			return fmt.Errorf("demo customer %s: %w", p.email, err)
		}
	}
	if err := st.Mark(ctx, marker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

const sellerMarker = "demo-seller-v1"

// DemoSeller is the demo shop's seller, printed on its invoices, receipts
// and credit notes.
var DemoSeller = store.Seller{
	LegalName: "Fika & Field AB",
	Address:   "Hamngatan 12\n411 11 Göteborg\nSweden",
	VATNumber: "SE556677889901",
	ChangedBy: "Demo",
}

// loadSeller fills the seller's details unless staff gave them already.
func loadSeller(ctx context.Context, st *store.Store) error {
	now, err := st.SellerNow(ctx)
	if err != nil {
		return err
	}
	if !now.Known() {
		if _, err := st.SaveSeller(ctx, DemoSeller); err != nil && !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("demo seller: %w", err)
		}
	}
	if err := st.Mark(ctx, sellerMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}
