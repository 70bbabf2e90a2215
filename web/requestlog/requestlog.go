// Package requestlog writes the access log's lines as the shop's log
// handler (slog's TextHandler) writes them, key=value with values quoted
// where they need it, but straight to the log's writer: slog's generic
// formatting of a line's seven attributes was 7% of a signed-in product
// view's CPU. TestLinesAreTheTextHandlers and FuzzLinePaths compare the
// two.
package requestlog

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Lines writes request lines to one writer.
type Lines struct {
	mu sync.Mutex // one Write a line, as the TextHandler's own lock keeps it
	w  io.Writer
	// second is the last second's time as written, up to its fraction:
	// formatting the whole time was a tenth of a line's cost, and lines
	// come many a second.
	second atomic.Pointer[writtenSecond]
}

// writtenSecond is a second's time as a line writes it: before its
// milliseconds (date, time, the dot) and after them (the zone).
type writtenSecond struct {
	unix          int64
	loc           *time.Location
	before, after []byte
}

// Line is what one request's line says.
type Line struct {
	At                      time.Time
	Method, Path, Route, ID string
	Status, Bytes           int
	Took                    time.Duration
}

// To writes lines to w; nil when w is.
func To(w io.Writer) *Lines {
	if w == nil {
		return nil
	}
	return &Lines{w: w}
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// Write writes r's line, in one Write.
func (l *Lines) Write(r Line) error {
	bp := lineBuffers.Get().(*[]byte)
	b := append((*bp)[:0], "time="...)
	b = l.appendTime(b, r.At)
	b = append(b, " level=INFO msg=request method="...)
	b = appendLogValue(b, r.Method)
	b = append(b, " path="...)
	b = appendLogValue(b, r.Path)
	b = append(b, " route="...)
	b = appendLogValue(b, r.Route)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, " duration_ms="...)
	b = strconv.AppendFloat(b, float64(r.Took.Microseconds())/1000, 'g', -1, 64)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(r.Bytes), 10)
	b = append(b, " request_id="...)
	b = appendLogValue(b, r.ID)
	b = append(b, '\n')
	l.mu.Lock()
	_, err := l.w.Write(b)
	l.mu.Unlock()
	*bp = b
	lineBuffers.Put(bp)
	return err
}

// timeLayout is the TextHandler's, to the millisecond.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendTime appends t as timeLayout does, from the second's text kept
// when t is in the second of the line before.
func (l *Lines) appendTime(b []byte, t time.Time) []byte {
	sec := l.second.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		whole := t.Truncate(time.Second).AppendFormat(nil, timeLayout)
		dot := bytes.IndexByte(whole, '.') + 1 // the fraction's (a year may be longer than four digits)
		sec = &writtenSecond{unix: t.Unix(), loc: t.Location(), before: whole[:dot], after: whole[dot+3:]}
		l.second.Store(sec)
	}
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, sec.before...)
	b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, sec.after...)
}

// appendLogValue appends s as the TextHandler does: as it is, or quoted
// when it is empty or holds a space, '=', '"', a control character or a
// rune that does not print (slog's needsQuoting).
func appendLogValue(b []byte, s string) []byte {
	if logValueNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func logValueNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// What a JSON string escapes but the backslash, and the space
			// and '=' that would split the pair.
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
