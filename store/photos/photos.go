// Package photos is the product photos: the check of an upload by its
// content, the resized copies, the shelf they are kept on (a directory, or
// an S3 bucket for more than one replica) and the pictures the shop draws
// for products without a photo.
package photos

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers WebP with image.DecodeConfig and image.Decode

	"shop/store"
)

// MaxBytes is the largest upload taken: 10 MB.
const MaxBytes = 10 << 20

// MaxPixels bounds the pixels of an upload: a small file can claim a huge
// picture, and decoding one takes 4 bytes a pixel.
const MaxPixels = 40_000_000

// Errors of Inspect, each with a message for staff.
var (
	ErrNotAPicture   = errors.New("that file is not a JPEG, PNG or WebP picture")
	ErrTooLarge      = errors.New("the photo is larger than 10 MB")
	ErrTooManyPixels = errors.New("the photo has more than 40 million pixels")
)

// Upload is an upload that passed the check: what it is, by its content.
type Upload struct {
	Data   []byte
	Format string // "jpeg", "png" or "webp", as the decoder named it
	Width  int
	Height int
}

// Inspect checks an upload by its content, never its name or declared type:
// its header must decode as a JPEG, PNG or WebP picture of a sane size.
func Inspect(data []byte) (Upload, error) {
	if len(data) > MaxBytes {
		return Upload{}, ErrTooLarge
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Upload{}, fmt.Errorf("%w: %v", ErrNotAPicture, err)
	}
	switch format {
	case "jpeg", "png", "webp":
	default: // another decoder registered elsewhere in the binary (gif)
		return Upload{}, ErrNotAPicture
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Upload{}, ErrNotAPicture
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return Upload{}, ErrTooManyPixels
	}
	return Upload{Data: data, Format: format, Width: cfg.Width, Height: cfg.Height}, nil
}

// Copy is one file of a photo on the shelf.
type Copy struct {
	Name        string // the shelf's name of it, see CopyName
	ContentType string
	Data        []byte
}

// Extension is the file extension of a format.
func Extension(format string) string {
	switch format {
	case "jpeg":
		return "jpg"
	default:
		return format
	}
}

// ContentType is the media type of a format.
func ContentType(format string) string { return "image/" + format }

// OriginalName is the shelf's name of a photo's original upload.
func OriginalName(p store.Photo, uploadFormat string) string {
	return "photos/" + p.Key + "/original." + Extension(uploadFormat)
}

// CopyName is the shelf's name of a photo's copy width pixels wide; the
// photo's URL carries the same two parts (paths.Photo).
func CopyName(key string, width int, format string) string {
	return fmt.Sprintf("photos/%s/%d.%s", key, width, Extension(format))
}

// jpegQuality keeps photos sharp at about a tenth of their pixels' bytes.
const jpegQuality = 82

// Process decodes a checked upload and makes its copies: the original as
// sent, and one copy per width of store.Photo.Widths, JPEG unless the
// picture has transparency (PNG keeps it). The photo's Key is the hash of
// the original's bytes, so the same upload gives the same names.
func Process(u Upload) (store.Photo, []Copy, error) {
	img, _, err := image.Decode(bytes.NewReader(u.Data))
	if err != nil {
		return store.Photo{}, nil, fmt.Errorf("%w: %v", ErrNotAPicture, err)
	}
	sum := sha256.Sum256(u.Data)
	b := img.Bounds()
	photo := store.Photo{Key: hex.EncodeToString(sum[:16]), Format: "jpeg", Width: b.Dx(), Height: b.Dy()}
	if !opaque(img) {
		photo.Format = "png"
	}
	copies := []Copy{{Name: OriginalName(photo, u.Format), ContentType: ContentType(u.Format), Data: u.Data}}
	// Largest first, each from the one before: the original is read once,
	// and halving with Catmull-Rom loses nothing worth seeing.
	widths := photo.Widths()
	from := img
	made := make([]Copy, len(widths))
	for i := len(widths) - 1; i >= 0; i-- {
		w := widths[i]
		h := max(1, (photo.Height*w+photo.Width/2)/photo.Width)
		small, data, err := resized(from, w, h, photo.Format)
		if err != nil {
			return store.Photo{}, nil, err
		}
		from = small
		made[i] = Copy{Name: CopyName(photo.Key, w, photo.Format), ContentType: ContentType(photo.Format), Data: data}
	}
	return photo, append(copies, made...), nil
}

// resized draws img at w×h with Catmull-Rom (sharp, no ringing to speak
// of) and encodes it; it returns the drawn picture too.
func resized(img image.Image, w, h int, format string) (image.Image, []byte, error) {
	var buf bytes.Buffer
	if format == "jpeg" {
		// An opaque picture: RGBA draws faster and JPEG has no alpha.
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return nil, nil, fmt.Errorf("encode jpeg: %w", err)
		}
		return dst, buf.Bytes(), nil
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, dst); err != nil {
		return nil, nil, fmt.Errorf("encode png: %w", err)
	}
	return dst, buf.Bytes(), nil
}

// opaque tells whether every pixel of img is fully opaque.
func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return false
			}
		}
	}
	return true
}
