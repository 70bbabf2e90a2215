package store

import (
	"context"
	"fmt"
	"time"
)

// Product is something the shop sells.
type Product struct {
	ID          string
	Name        string
	Description string
	Category    string // slug of its Category
	Price       Money
	CreatedAt   time.Time
	// Subscribable products can be subscribed to at MonthlyPrice a month
	// (which may differ from the one-off Price).
	Subscribable bool
	MonthlyPrice Money
	// TrialDays is the free trial a subscriber gets (0-90 days; 0: none),
	// once per customer (subscribe_trial.go).
	TrialDays int
	// Photo is the picture staff uploaded; zero when there is none (the
	// storefront then shows the shop's drawn picture).
	Photo Photo
	// Texts are the name and description in the shop's other languages,
	// by language code (product_texts.go); Name and Description are the
	// English.
	Texts map[string]ProductText
}

// OpenToSubscribers is whether a customer may subscribe (or swap) to p:
// marked subscribable, with a monthly price.
func (p Product) OpenToSubscribers() bool { return p.Subscribable && p.MonthlyPrice.Amount > 0 }

// Photo is a product's uploaded picture: the original and its resized
// copies sit on the photo shelf under Key (the original's content hash),
// so a new upload is a new Key and old URLs stay valid for caches.
type Photo struct {
	Key string
	// Format is the resized copies' encoding: "jpeg", or "png" when the
	// original has transparency.
	Format string
	// Width and Height are the original's, in pixels: the page reserves
	// the picture's space before it loads.
	Width, Height int
}

// photoWidths are the widths of the resized copies made of a photo wide
// enough for them; a narrower photo gets one copy at its own width.
var photoWidths = []int{320, 640, 1280}

// Widths are the widths of this photo's resized copies, smallest first,
// never wider than the original (never upscaled).
func (p Photo) Widths() []int {
	var ws []int
	for _, w := range photoWidths {
		if w <= p.Width {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 && p.Width > 0 {
		ws = []int{p.Width}
	}
	return ws
}

// Category groups the catalogue.
type Category struct {
	Slug        string
	Name        string
	Description string
}

type productRecord struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	EntityType  string `dynamodbav:"EntityType"`
	Name        string `dynamodbav:"Name"`
	Description string `dynamodbav:"Description"`
	Category    string `dynamodbav:"Category"`
	Price       int64  `dynamodbav:"Price"`
	Currency    string `dynamodbav:"Currency"`
	CreatedAt   string `dynamodbav:"CreatedAt"`
	// MonthlyPrice > 0 makes the product subscribable.
	MonthlyPrice int64 `dynamodbav:"MonthlyPrice,omitempty"`
	TrialDays    int   `dynamodbav:"TrialDays,omitempty"`
	// The uploaded photo, absent without one. It rides on the product item
	// so the catalogue's one Query brings it.
	PhotoKey    string `dynamodbav:"PhotoKey,omitempty"`
	PhotoFormat string `dynamodbav:"PhotoFormat,omitempty"`
	PhotoWidth  int    `dynamodbav:"PhotoWidth,omitempty"`
	PhotoHeight int    `dynamodbav:"PhotoHeight,omitempty"`
	// Texts in the other languages, absent when there are none.
	Texts map[string]ProductText `dynamodbav:"Texts,omitempty"`
	// GSI1: the product's category, by name. GSI2: the whole catalogue, by name.
	GSI1PK string `dynamodbav:"GSI1-PK"`
	GSI1SK string `dynamodbav:"GSI1-SK"`
	GSI2PK string `dynamodbav:"GSI2-PK"`
	GSI2SK string `dynamodbav:"GSI2-SK"`
}

func (r productRecord) product() Product {
	created, _ := time.Parse(time.RFC3339Nano, r.CreatedAt)
	return Product{
		ID: trimPrefix(r.PK, prefixProduct), Name: r.Name, Description: r.Description, Category: r.Category,
		Price: Money{Amount: r.Price, Currency: r.Currency}, CreatedAt: created,
		Subscribable: r.MonthlyPrice > 0, MonthlyPrice: Money{Amount: r.MonthlyPrice, Currency: r.Currency},
		TrialDays: r.TrialDays,
		Photo:     Photo{Key: r.PhotoKey, Format: r.PhotoFormat, Width: r.PhotoWidth, Height: r.PhotoHeight},
		Texts:     r.Texts,
	}
}

func newProductRecord(p Product) productRecord {
	return productRecord{
		PK: productKey(p.ID), SK: productKey(p.ID), EntityType: entityProduct,
		Name: p.Name, Description: p.Description, Category: p.Category,
		Price: p.Price.Amount, Currency: p.Price.Currency, CreatedAt: timestamp(p.CreatedAt), MonthlyPrice: subscriptionPrice(p),
		TrialDays: trialDays(p),
		PhotoKey:  p.Photo.Key, PhotoFormat: p.Photo.Format, PhotoWidth: p.Photo.Width, PhotoHeight: p.Photo.Height,
		Texts:  productTexts(p.Texts),
		GSI1PK: categoryKey(p.Category), GSI1SK: catalogueSortKey(p.Name, p.ID),
		GSI2PK: partitionCatalogue, GSI2SK: catalogueSortKey(p.Name, p.ID),
	}
}

type categoryRecord struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	EntityType  string `dynamodbav:"EntityType"`
	Name        string `dynamodbav:"Name"`
	Description string `dynamodbav:"Description"`
}

// PutProduct writes a product whole (seed data and imports).
func (s *Store) PutProduct(ctx context.Context, p Product) error {
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	if err := s.putItem(ctx, newProductRecord(p)); err != nil {
		return fmt.Errorf("put product %s: %w", p.ID, err)
	}
	return nil
}

// PutCategory writes a category whole.
func (s *Store) PutCategory(ctx context.Context, c Category) error {
	defer s.forgetProducts()
	err := s.putItem(ctx, categoryRecord{
		PK: partitionCategories, SK: categoryKey(c.Slug), EntityType: entityCategory,
		Name: c.Name, Description: c.Description,
	})
	if err != nil {
		return fmt.Errorf("put category %s: %w", c.Slug, err)
	}
	return nil
}

// Product reads a product by id (access pattern 2).
func (s *Store) Product(ctx context.Context, id string) (Product, error) {
	return getItem(ctx, s, productKey(id), productKey(id), "product "+id, productRecord.product)
}

// Categories lists every category, by slug, in one Query.
func (s *Store) Categories(ctx context.Context) ([]Category, error) {
	return queryAll(ctx, s, querySpec{key: onTable.pkEquals(partitionCategories)}, func(r categoryRecord) Category {
		return Category{Slug: trimPrefix(r.SK, prefixCategory), Name: r.Name, Description: r.Description}
	})
}

// Catalogue lists products by name, of one category or (category "") of the
// whole shop, one page per Query: GSI1 cat#slug, or GSI2 "catalogue".
func (s *Store) Catalogue(ctx context.Context, category string, limit int, cursor string) (Page[Product], error) {
	q := querySpec{key: onGSI2.pkEquals(partitionCatalogue)}
	if category != "" {
		q.key = onGSI1.pkEquals(categoryKey(category))
	}
	return pagedQuery(ctx, s, q, limit, cursor, productRecord.product)
}

// allProductsPage is how many products one Query of AllProducts asks for
// (some 300 KB: within DynamoDB's 1 MB a Query returns).
const allProductsPage = 1000

// AllProducts lists the whole catalogue by name (GSI2 "catalogue"), one
// Query per 1,000 products: the shop window's copy, which the storefront's
// sorted lists and the search index are made from.
func (s *Store) AllProducts(ctx context.Context) ([]Product, error) {
	var all []Product
	for cursor := ""; ; {
		page, err := s.Catalogue(ctx, "", allProductsPage, cursor)
		if err != nil {
			return nil, fmt.Errorf("whole catalogue: %w", err)
		}
		all = append(all, page.Items...)
		if cursor = page.Next; cursor == "" {
			return all, nil
		}
	}
}

// subscriptionPrice is what a product's item keeps as its monthly price: 0
// when it is not subscribable.
func subscriptionPrice(p Product) int64 {
	if !p.Subscribable {
		return 0
	}
	return p.MonthlyPrice.Amount
}
