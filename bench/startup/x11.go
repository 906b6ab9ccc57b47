package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// xconn is a connection to the benchmark's own X server (jezek/xgb, pure
// Go: polling a window's pixels costs a round trip, not a process spawn).
type xconn struct {
	c    *xgb.Conn
	root xproto.Window
}

func dialX(display string) (*xconn, error) {
	xgb.Logger = log.New(io.Discard, "", 0) // no ~/.Xauthority: Xvfb needs none
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("connect to X %s: %w", display, err)
	}
	return &xconn{c: c, root: xproto.Setup(c).DefaultScreen(c).Root}, nil
}

func (x *xconn) close() { x.c.Close() }

// findViewable returns a mapped window titled title (no window manager runs,
// so top-level windows are children of the root), or 0.
func (x *xconn) findViewable(title string) uint32 {
	tree, err := xproto.QueryTree(x.c, x.root).Reply()
	if err != nil {
		return 0
	}
	for _, w := range tree.Children {
		attr, err := xproto.GetWindowAttributes(x.c, w).Reply()
		if err != nil || attr.MapState != xproto.MapStateViewable {
			continue
		}
		name, err := xproto.GetProperty(x.c, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 256).Reply()
		if err == nil && string(name.Value) == title {
			return uint32(w)
		}
	}
	return 0
}

// frame is one capture of a window: 32 bits per pixel, BGRX.
type frame struct {
	w, h int
	data []byte
}

func (x *xconn) grab(win uint32) (frame, error) {
	g, err := xproto.GetGeometry(x.c, xproto.Drawable(win)).Reply()
	if err != nil {
		return frame{}, err
	}
	img, err := xproto.GetImage(x.c, xproto.ImageFormatZPixmap, xproto.Drawable(win), 0, 0, g.Width, g.Height, 0xffffffff).Reply()
	if err != nil {
		return frame{}, err
	}
	if len(img.Data) < int(g.Width)*int(g.Height)*4 {
		return frame{}, fmt.Errorf("unexpected image format (depth %d)", img.Depth)
	}
	return frame{w: int(g.Width), h: int(g.Height), data: img.Data}, nil
}

// flat reports whether every pixel has one colour: a window that shows only
// its background (white, or black) has no content yet.
func (f frame) flat() bool {
	if len(f.data) < 4 {
		return true
	}
	b0, g0, r0 := f.data[0], f.data[1], f.data[2]
	for i := 0; i+3 < len(f.data); i += 4 {
		if f.data[i] != b0 || f.data[i+1] != g0 || f.data[i+2] != r0 {
			return false
		}
	}
	return true
}

// mostlyBlack reports whether over 90 % of the pixels are near black.
func (f frame) mostlyBlack() bool {
	n, dark := 0, 0
	for i := 0; i+3 < len(f.data); i += 16 {
		n++
		if f.data[i] < 16 && f.data[i+1] < 16 && f.data[i+2] < 16 {
			dark++
		}
	}
	return n > 0 && dark*10 > n*9
}

func (f frame) savePNG(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			i := (y*f.w + x) * 4
			img.SetRGBA(x, y, color.RGBA{R: f.data[i+2], G: f.data[i+1], B: f.data[i], A: 0xff})
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(out, img); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
