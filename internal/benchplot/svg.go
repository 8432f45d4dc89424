package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Layout, in SVG user units.
const (
	width     = 1000
	margin    = 20
	labelW    = 150 // row labels
	wallX     = margin + labelW
	wallW     = 450
	rssX      = wallX + wallW + 60
	rssW      = width - margin - rssX - 70
	rowH      = 30
	barH      = 16
	cpuH      = 5
	timelineH = 280
)

// Okabe-Ito colours, one per phase in order of first appearance; the time
// outside Encode is grey.
var palette = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#882255", "#44AA99"}

const (
	greyOutside = "#BBBBBB"
	paholeFill  = "#777777"
	targetColor = "#C00000"
)

// Trace lines: btfgate's in colours, pahole's dashed grey.
var traceColors = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"}

const paholeLine = "#444444"

type canvas struct {
	b strings.Builder
	y float64 // next free y
}

func (c *canvas) f(format string, args ...any) {
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *canvas) text(x, y float64, anchor, style, s string) {
	c.f(`<text x="%.1f" y="%.1f" text-anchor="%s" %s>%s</text>`, x, y, anchor, style, html.EscapeString(s))
}

func (c *canvas) rect(x, y, w, h float64, fill, extra string) {
	if w <= 0 || h <= 0 {
		return
	}
	c.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" %s/>`, x, y, w, h, fill, extra)
}

func (c *canvas) line(x1, y1, x2, y2 float64, stroke, extra string) {
	c.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" %s/>`, x1, y1, x2, y2, stroke, extra)
}

type colours map[string]string

func phaseColours(b *Bench) colours {
	c := colours{}
	i := 0
	for _, n := range b.phaseNames() {
		if outside(n) {
			c[n] = greyOutside
			continue
		}
		c[n] = palette[i%len(palette)]
		i++
	}
	c["startup"], c["exit"] = greyOutside, greyOutside
	return c
}

// outside reports whether a phase is the time outside Encode.
func outside(name string) bool {
	return name == "startup+exit" || name == "startup" || name == "exit"
}

// render draws the whole figure.
func render(b *Bench) string {
	c := &canvas{y: margin}
	col := phaseColours(b)
	var body canvas
	body.y = c.y
	header(&body, b)
	legend(&body, b, col)
	for _, t := range b.targets() {
		targetPanel(&body, b, t, col)
	}
	if len(b.Traces) > 0 {
		timeline(&body, b, col)
	}
	h := body.y + margin
	c.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">`,
		width, h, width, h)
	c.f(`<rect x="0" y="0" width="%d" height="%.0f" fill="white"/>`, width, h)
	c.b.WriteString(body.b.String())
	c.f(`</svg>`)
	return c.b.String()
}

func header(c *canvas, b *Bench) {
	c.y += 16
	c.text(margin, c.y, "start", `font-size="17" font-weight="bold"`,
		fmt.Sprintf("btfgate encode vs pahole %s: wall time by phase and peak RSS", b.PaholeVersion))
	c.y += 18
	c.text(margin, c.y, "start", `fill="#444"`, fmt.Sprintf("%s · %d CPUs (%s), %d MiB · Linux %s · %s · btfgate %s",
		b.Date, b.CPUs, b.CPUModel, b.MemTotalMiB, b.Linux, b.GoVersion, b.Commit))
	c.y += 16
	det := ""
	for _, d := range b.Determinism {
		same := "identical"
		if !d.Identical {
			same = "DIFFERENT"
		}
		jobs := make([]string, len(d.Jobs))
		for i, j := range d.Jobs {
			jobs[i] = fmt.Sprintf("-j%d", j)
		}
		det += fmt.Sprintf(" · %s %s outputs %s", d.Target, strings.Join(jobs, "/"), same)
	}
	c.text(margin, c.y, "start", `fill="#444"`, fmt.Sprintf("medians of %d alternating rounds (-j8: one run) · load average %s at start, %s at end",
		b.Runs, b.LoadStart, b.LoadEnd))
	if det != "" {
		c.y += 16
		c.text(margin, c.y, "start", `fill="#444"`, "determinism:"+strings.TrimPrefix(det, " ·"))
	}
	c.y += 14
}

func legend(c *canvas, b *Bench, col colours) {
	c.y += 10
	x := float64(margin)
	wrap := func(w float64) {
		if x+w > width-margin {
			x = margin
			c.y += 20
		}
	}
	item := func(fill, label string, w float64) {
		wrap(w)
		c.rect(x, c.y, 12, 12, fill, "")
		c.text(x+16, c.y+10, "start", "", label)
		x += w
	}
	for _, n := range b.phaseNames() {
		w := 30 + 7*float64(len(n))
		item(col[n], n, w)
	}
	item(paholeFill, "pahole (whole process)", 170)
	wrap(160)
	c.rect(x, c.y+4, 24, cpuH, "#222", "")
	c.text(x+28, c.y+10, "start", "", "CPU time (user+sys)")
	x += 160
	wrap(80)
	c.line(x, c.y-1, x, c.y+13, targetColor, `stroke-width="1.5" stroke-dasharray="4,3"`)
	c.text(x+5, c.y+10, "start", "", "target")
	c.y += 22
}

// niceStep returns a 1, 2 or 5 times a power of ten step giving about n ticks up to max.
func niceStep(max float64, n int) float64 {
	if max <= 0 {
		return 1
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func axis(c *canvas, x0, w, max, y0, y1 float64, unit string) {
	step := niceStep(max, 5)
	for v := 0.0; v <= max*1.0001; v += step {
		x := x0 + w*v/max
		c.line(x, y0, x, y1, "#E5E5E5", "")
		c.text(x, y1+13, "middle", `fill="#555" font-size="11"`, trimFloat(v))
	}
	c.text(x0+w, y1+26, "end", `fill="#555" font-size="11"`, unit)
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// targetPanel draws one input's rows: wall time split by phase with the CPU
// time under it, and peak RSS, both with pahole's target lines.
func targetPanel(c *canvas, b *Bench, target string, col colours) {
	rows := b.rowsFor(target)
	if len(rows) == 0 {
		return
	}
	ph := b.pahole(target)
	c.y += 14
	c.text(margin, c.y, "start", `font-size="14" font-weight="bold"`, target)
	c.text(wallX, c.y, "start", `font-weight="bold"`, "wall time (s), split by phase; CPU time below")
	c.text(rssX, c.y, "start", `font-weight="bold"`, "peak RSS (MiB)")
	c.y += 8
	maxT := 0.0
	maxR := 0.0
	for _, r := range rows {
		maxT = math.Max(maxT, math.Max(r.Wall, r.CPU))
		maxT = math.Max(maxT, sumPhases(r.Phases))
		maxR = math.Max(maxR, r.RSS)
	}
	// Leave room right of the longest bars for their labels.
	maxT = niceCeil(maxT * 1.75)
	maxR = niceCeil(maxR * 1.3)
	top := c.y
	bottom := top + float64(len(rows))*rowH + 4
	axis(c, wallX, wallW, maxT, top, bottom, "s")
	axis(c, rssX, rssW, maxR, top, bottom, "MiB")
	for i, r := range rows {
		y := top + 6 + float64(i)*rowH
		label := strings.TrimSuffix(r.Name, " "+target)
		if r.Runs == 1 {
			label += " (1 run)"
		}
		c.text(wallX-8, y+barH-3, "end", "", label)
		// wall, by phase
		sx := func(v float64) float64 { return wallW * v / maxT }
		if len(r.Phases) > 0 {
			x := float64(wallX)
			for _, p := range r.Phases {
				w := sx(p.Seconds)
				c.f(`<rect x="%.1f" y="%.1f" width="%.2f" height="%d" fill="%s"><title>%s %s: %.3f s (median)</title></rect>`,
					x, y, w, barH, col[p.Name], html.EscapeString(r.Name), html.EscapeString(p.Name), p.Seconds)
				x += w
			}
			// the median wall, which the phase medians need not add up to
			c.line(wallX+sx(r.Wall), y-2, wallX+sx(r.Wall), y+barH+2, "#000", `stroke-width="1.5"`)
		} else {
			fill := paholeFill
			if r.Tool != "pahole" {
				fill = "#AAAAAA"
			}
			c.f(`<rect x="%d" y="%.1f" width="%.2f" height="%d" fill="%s"><title>%s: %.2f s wall</title></rect>`,
				wallX, y, sx(r.Wall), barH, fill, html.EscapeString(r.Name), r.Wall)
		}
		c.rect(wallX, y+barH+2, sx(r.CPU), cpuH, "#222", "")
		tw, tc := fmt.Sprintf("%.2f s", r.Wall), fmt.Sprintf("CPU %.2f s", r.CPU)
		if r.Ratio != nil {
			tw += fmt.Sprintf(" (%.2f×)", r.Ratio.Wall)
			tc += fmt.Sprintf(" (%.2f×)", r.Ratio.CPU)
		}
		if r.Runs > 1 && r.WallMin > 0 {
			// the fastest run: a dotted tick
			c.line(wallX+sx(r.WallMin), y-3, wallX+sx(r.WallMin), y+barH+3, "#000", `stroke-width="1" stroke-dasharray="2,2"`)
			tw += fmt.Sprintf(" · fastest %.2f s", r.WallMin)
			if r.Ratio != nil {
				tw += fmt.Sprintf(" (%.2f×)", r.Ratio.WallMin)
			}
		}
		tx := wallX + math.Max(sx(r.Wall), sx(r.CPU)) + 6
		c.text(tx, y+barH-4, "start", `font-size="11"`, tw)
		c.text(tx, y+barH+8, "start", `font-size="10" fill="#333"`, tc)
		// RSS
		fill := "#56B4E9"
		if r.Tool == "pahole" {
			fill = paholeFill
		}
		w := rssW * r.RSS / maxR
		c.rect(rssX, y, w, barH, fill, "")
		tr := fmt.Sprintf("%.0f", r.RSS)
		if r.Ratio != nil {
			tr += fmt.Sprintf(" (%.2f×)", r.Ratio.RSS)
		}
		c.text(rssX+w+6, y+barH-3, "start", `font-size="11"`, tr)
	}
	if ph != nil {
		goal := goalFor(target)
		x := wallX + wallW*goal.wall*ph.Wall/maxT
		c.line(x, top, x, bottom, targetColor, `stroke-width="1.5" stroke-dasharray="4,3"`)
		c.text(x+3, top+2, "start", `fill="#C00000" font-size="10"`, fmt.Sprintf("≤%s× pahole", trimFloat(goal.wall)))
		if ph.WallMin > 0 && ph.WallMin < ph.Wall {
			xm := wallX + wallW*goal.wall*ph.WallMin/maxT
			c.line(xm, top, xm, bottom, targetColor, `stroke-width="1" stroke-dasharray="1,3"`)
			c.text(xm-3, top+2, "end", `fill="#C00000" font-size="10"`, fmt.Sprintf("≤%s× pahole's fastest", trimFloat(goal.wall)))
		}
		x = rssX + rssW*goal.rss*ph.RSS/maxR
		c.line(x, top, x, bottom, targetColor, `stroke-width="1.5" stroke-dasharray="4,3"`)
		c.text(x-3, top+2, "end", `fill="#C00000" font-size="10"`, fmt.Sprintf("≤%s× pahole", trimFloat(goal.rss)))
	}
	c.y = bottom + 34
}

// goal is a target line: the wall time and peak RSS to reach, as fractions
// of pahole's.
type goal struct{ wall, rss float64 }

// goalFor returns the targets of the second speed issue for an input: a
// kernel at most 0.25x pahole's wall time and 0.5x its peak RSS; a module
// (whose wall target, 0.3x, is on the whole module set) at most its RSS.
func goalFor(target string) goal {
	if strings.HasSuffix(target, ".ko") {
		return goal{wall: 0.3, rss: 1.0}
	}
	return goal{wall: 0.25, rss: 0.5}
}

func sumPhases(ps []Phase) float64 {
	s := 0.0
	for _, p := range ps {
		s += p.Seconds
	}
	return s
}

// niceCeil rounds v up to a multiple of its tick step.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	step := niceStep(v, 5)
	return math.Ceil(v/step) * step
}

// timeline draws the RSS of the traced runs over time, with the phases of
// one btfgate run (the one with most jobs) as bands and the others'
// phase boundaries as ticks.
func timeline(c *canvas, b *Bench, col colours) {
	c.y += 10
	c.text(margin, c.y, "start", `font-size="14" font-weight="bold"`, "RSS over time (one traced run each, vmlinux; not in the medians)")
	c.y += 12
	maxT, maxR := 0.0, 0.0
	for _, t := range b.Traces {
		maxT = math.Max(maxT, t.Wall)
		maxR = math.Max(maxR, t.peak())
	}
	maxT, maxR = niceCeil(maxT), niceCeil(maxR*1.05)
	x0, w := float64(margin+50), float64(width-2*margin-60)
	top, bottom := c.y+14, c.y+14+timelineH
	sx := func(v float64) float64 { return x0 + w*v/maxT }
	sy := func(v float64) float64 { return bottom - timelineH*v/maxR }

	// bands of the btfgate trace with the most jobs
	band := -1
	for i, t := range b.Traces {
		if t.windows() != nil && (band < 0 || jobsOf(t.Name) > jobsOf(b.Traces[band].Name)) {
			band = i
		}
	}
	if band >= 0 {
		for _, win := range b.Traces[band].windows() {
			x1, x2 := sx(win.Start), sx(win.End)
			c.f(`<rect x="%.1f" y="%.1f" width="%.2f" height="%d" fill="%s" fill-opacity="0.25"><title>%s: %.2f–%.2f s, peak %.0f MiB</title></rect>`,
				x1, top, math.Max(0, x2-x1), timelineH, col[win.Name], html.EscapeString(win.Name), win.Start, win.End, win.PeakMiB)
			if x2-x1 > 7*float64(len(win.Name))+4 {
				c.text((x1+x2)/2, top+12, "middle", `font-size="11" fill="#333"`, win.Name)
			}
		}
		c.text(x0+w, top-4, "end", `font-size="11" fill="#333"`, "bands: phases of "+b.Traces[band].Name)
	}
	// grid and axes
	step := niceStep(maxR, 5)
	for v := 0.0; v <= maxR*1.0001; v += step {
		c.line(x0, sy(v), x0+w, sy(v), "#E5E5E5", "")
		c.text(x0-6, sy(v)+4, "end", `fill="#555" font-size="11"`, trimFloat(v))
	}
	c.text(x0-6, top-4, "end", `fill="#555" font-size="11"`, "MiB")
	step = niceStep(maxT, 10)
	for v := 0.0; v <= maxT*1.0001; v += step {
		c.line(sx(v), bottom, sx(v), bottom+4, "#555", "")
		c.text(sx(v), bottom+16, "middle", `fill="#555" font-size="11"`, trimFloat(v))
	}
	c.text(x0+w, bottom+30, "end", `fill="#555" font-size="11"`, "seconds since the process started")
	c.line(x0, bottom, x0+w, bottom, "#555", "")
	c.line(x0, top, x0, bottom, "#555", "")
	// the traces
	strokes := traceStrokes(b.Traces)
	for i, t := range b.Traces {
		stroke := strokes[i]
		var pts strings.Builder
		for _, s := range t.Samples {
			fmt.Fprintf(&pts, "%.1f,%.1f ", sx(s[0]), sy(s[1]))
		}
		dash := ""
		if t.Tool == "pahole" {
			dash = `stroke-dasharray="6,3"`
		}
		c.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2" %s/>`, strings.TrimSpace(pts.String()), stroke, dash)
		if i != band {
			for _, win := range t.windows() {
				c.line(sx(win.End), bottom-6, sx(win.End), bottom, stroke, `stroke-width="1.5"`)
			}
		}
	}
	// legend
	ly := bottom + 46
	x := x0
	for i, t := range b.Traces {
		stroke := strokes[i]
		c.line(x, ly-4, x+24, ly-4, stroke, `stroke-width="2"`)
		label := fmt.Sprintf("%s: peak %.0f MiB, %.1f s", t.Name, t.peak(), t.Wall)
		c.text(x+28, ly, "start", "", label)
		x += 40 + 6.5*float64(len(label))
	}
	c.y = ly + 10
}

func traceStrokes(ts []Trace) []string {
	out := make([]string, len(ts))
	n := 0
	for i, t := range ts {
		if t.Tool == "pahole" {
			out[i] = paholeLine
			continue
		}
		out[i] = traceColors[n%len(traceColors)]
		n++
	}
	return out
}

func jobsOf(name string) int {
	var j int
	if i := strings.Index(name, "-j"); i >= 0 {
		fmt.Sscanf(name[i+2:], "%d", &j)
	}
	return j
}
