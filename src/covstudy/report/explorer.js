/* covstudy's results explorer (covstudy/explorer.py writes it into report.html): sortable tables
   and one SVG figure of a measure against a grid axis, redrawn from the embedded table whenever
   a selector changes. No library, no network. */
var covstudyExplorer = (function () {
  "use strict";
  var W = 800, H = 440, M = {l: 62, r: 16, t: 16, b: 46}, SVG = "http://www.w3.org/2000/svg";
  var T, D, N, method, axes = {}, order = [], meas = {}, st = {}, api = {drawn: null};

  function bytes(s) {
    var b = atob(s), a = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) a[i] = b.charCodeAt(i);
    return a;
  }
  function codes(e) {
    if (!e.bytes) return new Uint8Array(N);
    var b = bytes(e.codes);
    if (e.bytes === 1) return b;
    var v = new DataView(b.buffer), out = new Uint16Array(b.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = v.getUint16(2 * i, true);
    return out;
  }
  function floats(e) {
    var out = new Float64Array(N);
    if ("const" in e) return out.fill(e["const"]);
    var v = new DataView(bytes(e.f32).buffer);
    for (var i = 0; i < N; i++) out[i] = v.getFloat32(4 * i, true);
    return out;
  }
  function el(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function sv(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) { return v === null || v === undefined ? "—" : typeof v === "number" ? String(+v.toPrecision(10)) : String(v); }
  function num(v, d) { return isFinite(v) ? v.toFixed(d === undefined ? 4 : d) : "—"; }

  // ------------------------------------------------------------------ selections
  function free(a) { return a === st.x || (st.view === "heatmap" && a === st.y); }  // drawn, not fixed
  function matches(i, upto) {  // row i agrees with the fixed values of the axes before `upto`
    for (var j = 0; j < upto; j++) {
      var a = order[j];
      if (!free(a) && axes[a].codes[i] !== st.fixed[a]) return false;
    }
    return true;
  }
  function cascade() {  // each fixed axis offers the values present under the axes chosen before it
    var opts = {};
    order.forEach(function (a, j) {
      if (free(a)) return;
      var seen = {};
      for (var i = 0; i < N; i++) if (matches(i, j)) seen[axes[a].codes[i]] = true;
      var list = Object.keys(seen).map(Number).sort(function (p, q) { return p - q; });
      if (list.indexOf(st.fixed[a]) < 0) {  // the nearest value still offered
        var want = st.fixed[a], best = list[0];
        list.forEach(function (c) { if (Math.abs(c - want) < Math.abs(best - want)) best = c; });
        st.fixed[a] = best;
      }
      opts[a] = list;
    });
    return opts;
  }

  // ------------------------------------------------------------------ controls
  function label(a) {  // a table may name an axis, or name it by the value of another (FPR or recall by curve)
    var l = D.labels && D.labels[a];
    if (l && typeof l === "object") l = l[axes[l.by].values[st.fixed[l.by]]];
    return l || (a === "delta" ? "δ" : a);
  }
  function level(m) { return (D.level || ["coverage"]).indexOf(m) >= 0; }  // nominal 1 − δ
  function controls() {
    var box = document.getElementById("controls"), opts = cascade();
    box.textContent = "";
    var row = el("div", {"class": "row"}, box), l, s;
    if (T.length > 1) {  // a band study: which table
      l = el("label", {}, row, "show ");
      s = el("select", {id: "sel-table"}, l);
      T.forEach(function (t, k) { el("option", {value: k}, s, t.title); });
      s.value = String(T.indexOf(D));
      s.onchange = function () { load(Number(this.value)); controls(); };
    }
    l = el("label", {}, row, "view ");
    s = el("select", {id: "sel-view"}, l);
    el("option", {value: "curves"}, s, "a measure against an axis");
    if ("mean_width" in D.names) el("option", {value: "tradeoff"}, s, "trade-off: coverage against width");
    if (gridAxes().length > 1) el("option", {value: "heatmap"}, s, "heatmap: a measure over two axes");
    s.value = st.view;
    s.onchange = function () { st.view = this.value; pickY(); controls(); };
    l = el("label", {}, row, "measure ");
    s = el("select", {id: "sel-measure"}, l);
    Object.keys(D.names).forEach(function (m) { el("option", {value: m}, s, D.names[m]); });
    s.value = st.measure;
    s.disabled = st.view === "tradeoff";
    s.onchange = function () { st.measure = this.value; draw(); };
    var heat = st.view === "heatmap";
    l = el("label", {}, row, st.view === "tradeoff" ? "averaged over " : heat ? "columns " : "against ");
    s = el("select", {id: "sel-x"}, l);
    order.forEach(function (a) { if (axes[a].numeric && axes[a].k > 1) el("option", {value: a}, s, label(a)); });
    s.value = st.x;
    s.onchange = function () { st.x = this.value; st.log = defaultLog(); pickY(); controls(); };
    if (heat) {
      l = el("label", {}, row, "rows ");
      s = el("select", {id: "sel-y"}, l);
      gridAxes().forEach(function (a) { if (a !== st.x) el("option", {value: a}, s, label(a)); });
      s.value = st.y;
      s.onchange = function () { st.y = this.value; controls(); };
      l = el("label", {}, row, "method ");
      s = el("select", {id: "sel-method"}, l);
      D.methods.forEach(function (m, k) { el("option", {value: k}, s, m.label); });
      s.value = String(st.method);
      s.onchange = function () { st.method = Number(this.value); draw(); };
    }
    l = el("label", {}, row, " log scale");
    var c = el("input", {type: "checkbox", id: "chk-log"}, null);
    l.insertBefore(c, l.firstChild);
    c.checked = st.log;
    c.onchange = function () { st.log = this.checked; draw(); };
    l = el("label", {}, row, " zoom near nominal");
    c = el("input", {type: "checkbox", id: "chk-zoom"}, null);
    l.insertBefore(c, l.firstChild);
    c.checked = st.zoom;
    c.onchange = function () { st.zoom = this.checked; draw(); };
    row = el("div", {"class": "row"}, box);
    var fixed = [];
    order.forEach(function (a) {
      if (free(a)) return;
      var ax = axes[a];
      if (ax.k < 2) { fixed.push(label(a) + " = " + fmt(ax.values[0])); return; }
      l = el("label", {}, row, label(a) + " ");
      s = el("select", {id: "sel-" + a}, l);
      opts[a].forEach(function (code) { el("option", {value: code}, s, fmt(ax.values[code])); });
      s.value = String(st.fixed[a]);
      s.disabled = opts[a].length < 2;
      s.onchange = function () { st.fixed[a] = Number(this.value); controls(); };
    });
    if (fixed.length) el("span", {"class": "fixed"}, row, "fixed: " + fixed.join(", "));
    row = el("div", {"class": "row methods"}, box);
    if (heat) row.hidden = true;
    var present = {};  // methods with rows at these values (a band study's PR curve has fewer)
    for (var i = 0; i < N; i++) if (matches(i, order.length)) present[method[i]] = true;
    D.methods.forEach(function (m, k) {
      l = el("label", k in present ? {} : {"class": "absent", title: "no rows at these values"}, row);
      c = el("input", {type: "checkbox", id: "chk-method-" + k, "data-label": m.label}, l);
      c.checked = st.shown[k];
      c.onchange = function () { st.shown[k] = this.checked; draw(); };
      el("span", {"class": "swatch", style: "background:" + m.color}, l);
      l.appendChild(document.createTextNode(m.label));
    });
    var all = el("button", {type: "button", id: "btn-all"}, row, "all");
    all.onclick = function () { st.shown = st.shown.map(function () { return true; }); controls(); };
    var none = el("button", {type: "button", id: "btn-none"}, row, "none");
    none.onclick = function () { st.shown = st.shown.map(function () { return false; }); controls(); };
    draw();
  }

  // ------------------------------------------------------------------ data of the figure
  function series(m) {
    var y = meas[m], how = D.mcse[m], se = how && how !== "binomial" ? meas[how] : null;
    var reps = meas.reps, exact = m === "coverage" ? meas.exact_coverage : m === "mean_width" ? meas.exact_mean_width : null;
    var x = axes[st.x], out = D.methods.map(function (d) { return {label: d.label, color: d.color, pts: []}; });
    for (var i = 0; i < N; i++) {
      if (!st.shown[method[i]] || !matches(i, order.length)) continue;
      var xv = x.values[x.codes[i]], yv = y[i];
      if (xv === null || xv === undefined || !isFinite(yv)) continue;
      var e = se ? se[i] : how === "binomial" && reps ? Math.sqrt(yv * (1 - yv) / reps[i]) : 0;
      out[method[i]].pts.push({x: xv, y: yv, se: isFinite(e) ? e : 0, exact: exact ? exact[i] : NaN});
    }
    out.forEach(function (s) { s.pts.sort(function (p, q) { return p.x - q.x; }); });
    return out.filter(function (s) { return s.pts.length; });
  }
  function tradeoff() {  // each method's mean width and mean coverage over the x axis at the chosen values
    var width = series("mean_width");
    return series("coverage").map(function (s, k) {
      var mean = function (pts) { return pts.reduce(function (a, p) { return a + p.y; }, 0) / pts.length; };
      return {label: s.label, color: s.color, pts: [{x: mean(width[k].pts), y: mean(s.pts), se: 0, exact: NaN}]};
    });
  }
  function delta() { return "delta" in axes ? axes.delta.values[st.fixed.delta] : null; }
  function nominal(m) {
    var d = delta(), side = "side" in axes ? axes.side.values[st.fixed.side] : "two-sided";
    if (d === null) return null;
    if (level(m)) return 1 - d;
    if (m === "miss_low" || m === "miss_high") return side === "two-sided" ? d / 2 : null;
    return null;
  }

  // ------------------------------------------------------------------ scales and axes
  function ticks(lo, hi, log) {
    if (log) {
      var t = [];
      for (var e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
        [1, 2, 5].forEach(function (k) { var v = k * Math.pow(10, e); if (v >= lo * 0.999 && v <= hi * 1.001) t.push(v); });
      return t;
    }
    var span = hi - lo || 1, step = Math.pow(10, Math.floor(Math.log10(span / 5))), out = [];
    [1, 2, 2.5, 5, 10].some(function (k) { if (span / (k * step) <= 7) { step *= k; return true; } return false; });
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(10));
    return out;
  }
  function gridAxes() { return order.filter(function (a) { return axes[a].numeric && axes[a].k > 1 && a !== "delta"; }); }
  function pickY() {  // the heatmap's rows: another axis than its columns
    if (st.y && st.y !== st.x && axes[st.y].k > 1) return;
    st.y = gridAxes().filter(function (a) { return a !== st.x; })[0];
  }
  function defaultLog() {
    var v = axes[st.x].values.filter(function (x) { return x !== null; });
    return v[0] > 0 && v[v.length - 1] / v[0] >= 20 && v.every(Number.isInteger);  // sizes, not rates
  }

  // ------------------------------------------------------------------ the heatmap
  function mix(a, b, t) {
    return "rgb(" + a.map(function (v, i) { return Math.round(v + (b[i] - v) * t); }).join(",") + ")";
  }
  function drawHeatmap(svg) {
    var m = st.measure, v = meas[m], X = axes[st.x], Y = axes[st.y], nom = nominal(m), d = delta();
    var cells = [], xs = {}, ys = {}, status = document.getElementById("status"), tip = document.getElementById("tip");
    for (var i = 0; i < N; i++) {
      if (method[i] !== st.method || !matches(i, order.length)) continue;
      var xv = X.values[X.codes[i]], yv = Y.values[Y.codes[i]];
      if (xv === null || yv === null || !isFinite(v[i])) continue;
      xs[xv] = true; ys[yv] = true;
      cells.push([xv, yv, v[i]]);
    }
    api.drawn = {view: "heatmap", measure: m, x: st.x, y: st.y, method: D.methods[st.method].label, fixed: {}, cells: cells};
    order.forEach(function (a) { if (!free(a)) api.drawn.fixed[a] = axes[a].values[st.fixed[a]]; });
    if (!cells.length) { status.textContent = "No rows of this method at this selection."; return; }
    var byNum = function (p, q) { return p - q; };
    xs = Object.keys(xs).map(Number).sort(byNum); ys = Object.keys(ys).map(Number).sort(byNum);
    var vals = cells.map(function (c) { return c[2]; }), lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var cw = (W - M.l - M.r) / xs.length, chh = (H - M.t - M.b) / ys.length, white = [255, 255, 255];
    var span = nom === null ? 0 : Math.max(Math.abs(lo - nom), Math.abs(hi - nom), 1e-9);
    if (m === "coverage" && d !== null) span = Math.min(span, 4 * d);
    var colour = function (val) {  // diverging around nominal (red below, blue above), else white to blue
      if (nom === null) return mix(white, [0, 114, 178], (val - lo) / (hi - lo || 1));
      var t = Math.max(-1, Math.min(1, (val - nom) / span));
      return t < 0 ? mix(white, [213, 94, 0], -t) : mix(white, [0, 114, 178], t);
    };
    var g = sv("g", {"class": "axes"}, svg);
    cells.forEach(function (c) {
      sv("rect", {x: M.l + xs.indexOf(c[0]) * cw, y: H - M.b - (ys.indexOf(c[1]) + 1) * chh, width: cw + 0.3,
                  height: chh + 0.3, fill: colour(c[2]), "class": "cell"}, svg);
    });
    var every = function (n, most) { return Math.max(1, Math.ceil(n / most)); };
    xs.forEach(function (x, k) {
      if (k % every(xs.length, 12) === 0)
        sv("text", {x: M.l + (k + 0.5) * cw, y: H - M.b + 16, "text-anchor": "middle"}, g).textContent = fmt(x);
    });
    ys.forEach(function (y, k) {
      if (k % every(ys.length, 14) === 0)
        sv("text", {x: M.l - 6, y: H - M.b - (k + 0.5) * chh + 4, "text-anchor": "end"}, g).textContent = fmt(y);
    });
    sv("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b, "class": "frame"}, g);
    sv("text", {x: (M.l + W - M.r) / 2, y: H - 8, "text-anchor": "middle", "class": "title"}, g).textContent = label(st.x);
    sv("text", {x: 14, y: (M.t + H - M.b) / 2, "text-anchor": "middle", "class": "title",
                transform: "rotate(-90 14 " + (M.t + H - M.b) / 2 + ")"}, g).textContent = label(st.y);
    svg.onmousemove = function (ev) {
      var r = svg.getBoundingClientRect(), px = (ev.clientX - r.left) * W / r.width, py = (ev.clientY - r.top) * H / r.height;
      var ix = Math.floor((px - M.l) / cw), iy = Math.floor((H - M.b - py) / chh);
      var c = cells.filter(function (c) { return c[0] === xs[ix] && c[1] === ys[iy]; })[0];
      if (!c) { tip.hidden = true; return; }
      tip.textContent = "";
      el("div", {"class": "head"}, tip, label(st.x) + " = " + fmt(c[0]) + ", " + label(st.y) + " = " + fmt(c[1]));
      el("div", {}, tip, D.methods[st.method].label + ": " + num(c[2]));
      tip.hidden = false;
      var left = (px / W) * r.width;
      tip.style.left = (left > r.width / 2 ? left - tip.offsetWidth - 12 : left + 12) + "px";
      tip.style.top = "8px";
    };
    svg.onmouseleave = function () { tip.hidden = true; };
    status.textContent = D.names[m] + " of " + D.methods[st.method].label + " over " + label(st.x) + " and " + label(st.y) +
      (nom !== null ? ": white at nominal " + num(nom, 3) + ", red below, blue above (full colour " + num(span) + " away)"
                    : ": white at " + num(lo) + ", blue at " + num(hi)) + ".";
  }

  // ------------------------------------------------------------------ drawing
  function draw() {
    var svg = document.getElementById("chart"), tr = st.view === "tradeoff", m = tr ? "coverage" : st.measure;
    svg.onmousemove = svg.onmouseleave = null;
    document.getElementById("tip").hidden = true;
    if (st.view === "heatmap") {
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      svg.textContent = "";
      return drawHeatmap(svg);
    }
    var data = tr ? tradeoff() : series(m), xname = tr ? "mean expected width over " + label(st.x) : label(st.x);
    var yname = tr ? "mean coverage over " + label(st.x) : D.names[m];
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.textContent = "";
    var xs = [], lo = Infinity, hi = -Infinity, nom = nominal(m), d = delta();
    data.forEach(function (s) {
      s.pts.forEach(function (p) {
        xs.push(p.x);
        lo = Math.min(lo, p.y - 2 * p.se, isFinite(p.exact) ? p.exact : Infinity);
        hi = Math.max(hi, p.y + 2 * p.se, isFinite(p.exact) ? p.exact : -Infinity);
      });
    });
    var status = document.getElementById("status");
    api.drawn = {view: st.view, table: D.key, measure: m, x: tr ? "mean_width" : st.x, fixed: {}, series: data.map(function (s) {
      return {label: s.label, x: s.pts.map(function (p) { return p.x; }), y: s.pts.map(function (p) { return p.y; }),
              mcse: s.pts.map(function (p) { return p.se; })};
    })};
    order.forEach(function (a) { if (!free(a)) api.drawn.fixed[a] = axes[a].values[st.fixed[a]]; });
    if (!data.length) { status.textContent = "No method selected, or no rows at this selection."; return; }
    if (nom !== null) { lo = Math.min(lo, nom); hi = Math.max(hi, nom); }
    var note = "";
    if (level(m) && st.zoom && d !== null) {
      var floor = Math.min(Math.max(lo, 1 - 4 * d), 1 - 1.5 * d);
      if (lo < floor) note = "Some values lie below the axis (lowest " + num(lo) + "); untick 'zoom near nominal' to see them.";
      lo = floor;
      hi = Math.max(hi, 1);
    }
    if (level(m) || m.indexOf("miss") === 0 || m === "excludes_zero") { lo = Math.max(lo, 0); hi = Math.min(hi, 1); }
    if (hi - lo < 1e-9) { lo -= 0.01; hi += 0.01; }
    var pad = 0.03 * (hi - lo); lo -= pad; hi += pad;
    var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs), log = st.log && !tr && xmin > 0;
    if (xmin === xmax) { xmin -= tr ? 0.01 : 1; xmax += tr ? 0.01 : 1; log = false; }
    if (tr) { var w = xmax - xmin; xmin -= 0.05 * w; xmax += 0.2 * w; }  // room for the methods' names
    var f = log ? Math.log : function (v) { return v; }, a0 = f(xmin), a1 = f(xmax);
    var sx = function (v) { return M.l + (f(v) - a0) / (a1 - a0) * (W - M.l - M.r); };
    var sy = function (v) { return H - M.b - (v - lo) / (hi - lo) * (H - M.t - M.b); };
    var clip = sv("clipPath", {id: "plot-area"}, sv("defs", {}, svg));
    sv("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b}, clip);
    var g = sv("g", {"class": "axes"}, svg);
    ticks(lo, hi, false).forEach(function (t) {
      sv("line", {x1: M.l, x2: W - M.r, y1: sy(t), y2: sy(t), "class": "grid"}, g);
      sv("text", {x: M.l - 6, y: sy(t) + 4, "text-anchor": "end"}, g).textContent = +t.toPrecision(6);
    });
    ticks(xmin, xmax, log).forEach(function (t) {
      sv("line", {x1: sx(t), x2: sx(t), y1: M.t, y2: H - M.b, "class": "grid"}, g);
      sv("text", {x: sx(t), y: H - M.b + 16, "text-anchor": "middle"}, g).textContent = +t.toPrecision(6);
    });
    sv("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b, "class": "frame"}, g);
    sv("text", {x: (M.l + W - M.r) / 2, y: H - 8, "text-anchor": "middle", "class": "title"}, g).textContent =
      xname + (log ? " (log scale)" : "");
    sv("text", {x: 14, y: (M.t + H - M.b) / 2, "text-anchor": "middle", "class": "title",
                transform: "rotate(-90 14 " + (M.t + H - M.b) / 2 + ")"}, g).textContent = yname;
    var plot = sv("g", {"clip-path": "url(#plot-area)"}, svg);
    if (nom !== null) sv("line", {x1: M.l, x2: W - M.r, y1: sy(nom), y2: sy(nom), "class": "nominal"}, plot);
    data.forEach(function (s) {
      var pts = s.pts, band = pts.some(function (p) { return p.se > 0; });
      if (band) {
        var up = pts.map(function (p) { return sx(p.x) + "," + sy(Math.min(p.y + 2 * p.se, 1)); });
        var down = pts.slice().reverse().map(function (p) { return sx(p.x) + "," + sy(Math.max(p.y - 2 * p.se, 0)); });
        sv("polygon", {points: up.concat(down).join(" "), fill: s.color, "class": "band"}, plot);
      }
      var exact = pts.filter(function (p) { return isFinite(p.exact); });  // points past the exact engine: none
      if (exact.length)
        sv("polyline", {points: exact.map(function (p) { return sx(p.x) + "," + sy(p.exact); }).join(" "),
                        stroke: s.color, "class": "exact"}, plot);
      sv("polyline", {points: pts.map(function (p) { return sx(p.x) + "," + sy(p.y); }).join(" "),
                      stroke: s.color, "class": "series", "data-label": s.label}, plot);
      if (pts.length <= 30) pts.forEach(function (p) { sv("circle", {cx: sx(p.x), cy: sy(p.y), r: tr ? 5 : 2.5, fill: s.color}, plot); });
      if (tr) sv("text", {x: sx(pts[0].x) + 8, y: sy(pts[0].y) + 4, "class": "point-label"}, plot).textContent = s.label;
    });
    var guide = sv("line", {y1: M.t, y2: H - M.b, "class": "guide", visibility: "hidden"}, svg);
    var xv = Array.from(new Set(xs)).sort(function (p, q) { return p - q; });
    var tip = document.getElementById("tip");
    svg.onmousemove = function (ev) {
      var r = svg.getBoundingClientRect(), px = (ev.clientX - r.left) * W / r.width, best = xv[0];
      xv.forEach(function (v) { if (Math.abs(sx(v) - px) < Math.abs(sx(best) - px)) best = v; });
      guide.setAttribute("x1", sx(best)); guide.setAttribute("x2", sx(best)); guide.setAttribute("visibility", "visible");
      tip.textContent = "";
      el("div", {"class": "head"}, tip, tr ? "mean width " + num(best) : label(st.x) + " = " + fmt(best));
      data.forEach(function (s) {
        s.pts.forEach(function (p) {
          if (p.x !== best) return;
          var line = el("div", {}, tip), sw = el("span", {"class": "swatch", style: "background:" + s.color}, line);
          line.appendChild(document.createTextNode(s.label + ": " + num(p.y) + (p.se > 0 ? " ± " + num(2 * p.se) : "") +
            (isFinite(p.exact) ? " (exact " + num(p.exact) + ")" : "")));
        });
      });
      tip.hidden = false;
      var left = (sx(best) / W) * r.width;
      tip.style.left = (left > r.width / 2 ? left - tip.offsetWidth - 12 : left + 12) + "px";
      tip.style.top = "8px";
    };
    svg.onmouseleave = function () { tip.hidden = true; guide.setAttribute("visibility", "hidden"); };
    var what = [];
    order.forEach(function (a) { if (!free(a) && axes[a].k > 1) what.push(label(a) + " = " + fmt(axes[a].values[st.fixed[a]])); });
    status.textContent = (tr ? "mean coverage against mean width over " : D.names[m] + " against ") + label(st.x) + (what.length ? " at " + what.join(", ") : "") +
      (nom !== null ? "; dashed: nominal " + num(nom, 3) : "") +
      (data.some(function (s) { return s.pts.some(function (p) { return p.se > 0; }); }) ? "; bands: ±2·MCSE" : "") +
      (data.some(function (s) { return s.pts.some(function (p) { return isFinite(p.exact); }); }) ? "; thin lines: exact" : "") +
      ". " + note;
  }

  // ------------------------------------------------------------------ tables and downloads
  function csvCell(v) { v = String(v); return /[",\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v; }
  function download(name, lines) {
    var a = el("a", {href: URL.createObjectURL(new Blob([lines.join("\n") + "\n"], {type: "text/csv"})), download: name});
    a.click();
  }
  function sortables() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        th.tabIndex = 0;
        th.onclick = th.onkeydown = function (ev) {
          if (ev.type === "keydown" && ev.key !== "Enter") return;
          var up = th.getAttribute("aria-sort") !== "ascending", body = table.tBodies[0];
          Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", up ? "ascending" : "descending");
          var rows = Array.prototype.slice.call(body.rows), numeric = th.dataset.type === "num";
          rows.sort(function (p, q) {
            var a = p.cells[col], b = q.cells[col], r;
            if (numeric) {
              var x = a.dataset.v === undefined ? NaN : +a.dataset.v, y = b.dataset.v === undefined ? NaN : +b.dataset.v;
              if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);
              r = x - y;
            } else r = a.textContent.localeCompare(b.textContent);
            return up ? r : -r;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        };
      });
    });
  }
  function tableCsv(table) {
    return Array.prototype.map.call(table.rows, function (r) {
      return Array.prototype.map.call(r.cells, function (c) { return csvCell(c.dataset.v !== undefined ? c.dataset.v : c.textContent); }).join(",");
    });
  }

  // ------------------------------------------------------------------ start
  function load(k) {  // show table k; a band page switching tables keeps the chosen values and methods
    var was = {fixed: {}, shown: {}};
    if (D) {
      order.forEach(function (a) { was.fixed[a] = axes[a].values[st.fixed[a]]; });
      D.methods.forEach(function (m, i) { was.shown[m.label] = st.shown[i]; });
    }
    D = T[k];
    N = D.rows;
    method = codes(D.method);
    axes = {}; order = []; meas = {};
    D.axes.forEach(function (a) { axes[a.name] = {values: a.values.concat(a.numeric ? [null] : []), k: a.values.length, numeric: a.numeric, codes: codes(a)}; order.push(a.name); });
    Object.keys(D.measures).forEach(function (k) { meas[k] = floats(D.measures[k]); });
    st = {view: "curves", measure: "coverage" in D.names ? "coverage" : Object.keys(D.names)[0], fixed: {}, method: 0,
          shown: D.methods.map(function () { return true; }), zoom: true};
    // Against the axis that draws the most points at the first values of the others (an axis
    // computed from others, as n from n_pos and n_neg, draws one).
    var most = -1, best = order[0];
    order.forEach(function (a) {
      if (!axes[a].numeric || axes[a].k < 2 || a === "delta") return;
      st.x = a;
      order.forEach(function (b) { st.fixed[b] = 0; });
      cascade();
      var seen = {};
      for (var i = 0; i < N; i++) if (matches(i, order.length)) seen[axes[a].codes[i]] = true;
      if (Object.keys(seen).length > most) { most = Object.keys(seen).length; best = a; }
    });
    st.x = best;
    pickY();
    order.forEach(function (a) { var c = axes[a].values.indexOf(was.fixed[a]); st.fixed[a] = c >= 0 && a in was.fixed ? c : 0; });
    D.methods.forEach(function (m, i) { if (m.label in was.shown) st.shown[i] = was.shown[m.label]; });
    st.log = defaultLog();
  }
  function start() {
    var J = JSON.parse(document.getElementById("covstudy-data").textContent);
    T = J.tables || [J];
    load(0);
    sortables();
    controls();
    document.getElementById("download-summary").onclick = function () { download("summary.csv", tableCsv(document.getElementById("summary"))); };
    document.getElementById("download-all").onclick = function () {
      var cols = order.concat(Object.keys(meas)), lines = [["label"].concat(cols).join(",")];
      for (var i = 0; i < N; i++)
        lines.push([csvCell(D.methods[method[i]].label)].concat(cols.map(function (c) {
          var v = c in axes ? axes[c].values[axes[c].codes[i]] : +meas[c][i].toPrecision(7);
          return v === null || (typeof v === "number" && isNaN(v)) ? "" : csvCell(v);
        })).join(","));
      download((D.key || "results") + ".csv", lines);
    };
    document.getElementById("download-shown").onclick = function () {
      if (api.drawn.view === "heatmap") {
        var rows = [["method", api.drawn.x, api.drawn.y, api.drawn.measure].join(",")];
        api.drawn.cells.forEach(function (c) { rows.push([csvCell(api.drawn.method)].concat(c).join(",")); });
        return download("shown.csv", rows);
      }
      var lines = [["method", api.drawn.x, api.drawn.measure, "mcse"].join(",")];
      api.drawn.series.forEach(function (s) { s.x.forEach(function (x, i) { lines.push([csvCell(s.label), x, s.y[i], s.mcse[i]].join(",")); }); });
      download("shown.csv", lines);
    };
  }
  // ------------------------------------------------------------------ covstudy-evaluate: a forest plot
  function forest() {
    var E = JSON.parse(document.getElementById("covstudy-evaluation").textContent), fs = {metric: null};
    var metrics = [];
    E.rows.forEach(function (r) { if (metrics.indexOf(r.metric) < 0) metrics.push(r.metric); });
    fs.metric = metrics[0];
    var box = document.getElementById("controls"), l = el("label", {}, box, "metric "), s = el("select", {id: "sel-metric"}, l);
    metrics.forEach(function (m) { el("option", {value: m}, s, m); });
    s.onchange = function () { fs.metric = this.value; drawForest(); };
    function drawForest() {
      var rows = E.rows.filter(function (r) { return r.metric === fs.metric && r.lower !== null && r.upper !== null; });
      var svg = document.getElementById("chart"), tip = document.getElementById("tip"), L = 190, R = 200, T = 14, B = 40, row = 24;
      var h = T + B + row * Math.max(rows.length, 1);
      svg.setAttribute("viewBox", "0 0 " + W + " " + h);
      svg.textContent = "";
      api.drawn = {metric: fs.metric, rows: rows.map(function (r) { return {method: r.method, lower: r.lower, upper: r.upper, recommended: r.recommended}; })};
      var status = document.getElementById("status");
      if (!rows.length) { status.textContent = "No interval for " + fs.metric + "."; return; }
      var lo = Math.min.apply(null, rows.map(function (r) { return r.lower; })), hi = Math.max.apply(null, rows.map(function (r) { return r.upper; }));
      var pad = 0.05 * (hi - lo || 0.01); lo -= pad; hi += pad;
      var sx = function (v) { return L + (v - lo) / (hi - lo) * (W - L - R); };
      var g = sv("g", {"class": "axes"}, svg);
      ticks(lo, hi, false).forEach(function (t) {
        sv("line", {x1: sx(t), x2: sx(t), y1: T, y2: h - B, "class": "grid"}, g);
        sv("text", {x: sx(t), y: h - B + 16, "text-anchor": "middle"}, g).textContent = +t.toPrecision(6);
      });
      sv("rect", {x: L, y: T, width: W - L - R, height: h - T - B, "class": "frame"}, g);
      sv("line", {x1: sx(rows[0].estimate), x2: sx(rows[0].estimate), y1: T, y2: h - B, "class": "nominal"}, g);
      sv("text", {x: (L + W - R) / 2, y: h - 6, "text-anchor": "middle", "class": "title"}, g).textContent =
        fs.metric + " (dashed: the estimate " + num(rows[0].estimate) + ")";
      rows.forEach(function (r, k) {
        var y = T + row * (k + 0.5), colour = r.recommended ? "#D55E00" : "#555";
        sv("text", {x: L - 8, y: y + 4, "text-anchor": "end", fill: colour}, svg).textContent = r.method + (r.recommended ? " ★" : "");
        sv("line", {x1: sx(r.lower), x2: sx(r.upper), y1: y, y2: y, stroke: colour, "stroke-width": r.recommended ? 3 : 1.6,
                    "class": "interval", "data-method": r.method}, svg);
        var text = r.coverage_at_estimate === null ? "" : num(r.coverage_at_estimate, 3);
        if (r.worst_coverage !== null) text += " (worst " + (r.worst_is_upper_bound ? "≤ " : "") + num(r.worst_coverage, 3) + ")";
        sv("text", {x: W - R + 8, y: y + 4, fill: colour}, svg).textContent = text;
      });
      svg.onmousemove = function (ev) {
        var rc = svg.getBoundingClientRect(), py = (ev.clientY - rc.top) * h / rc.height, k = Math.floor((py - T) / row);
        var r = rows[k];
        if (!r) { tip.hidden = true; return; }
        tip.textContent = "";
        el("div", {"class": "head"}, tip, r.method + (r.recommended ? " (recommended)" : ""));
        el("div", {}, tip, "interval [" + num(r.lower) + ", " + num(r.upper) + "], width " + num(r.upper - r.lower));
        if (r.coverage_at_estimate !== null)
          el("div", {}, tip, "coverage at the estimate " + num(r.coverage_at_estimate) +
             (r.coverage_mcse ? " ± " + num(2 * r.coverage_mcse) : "") + " (" + r.engine + ")");
        if (r.worst_coverage !== null) el("div", {}, tip, "worst coverage in the region " + (r.worst_is_upper_bound ? "≤ " : "") + num(r.worst_coverage));
        if (r.mean_width !== null) el("div", {}, tip, "expected width " + num(r.mean_width));
        tip.hidden = false;
        tip.style.left = ((L + 20) / W * rc.width) + "px";
        tip.style.top = ((T + row * (k + 1)) / h * rc.height + 4) + "px";
      };
      svg.onmouseleave = function () { tip.hidden = true; };
      status.textContent = rows.length + " methods; ★ recommended: the narrowest whose worst coverage is at least " +
        num(E.level, 3) + " − ε; right: coverage at the estimate (and the worst over the region).";
    }
    sortables();
    drawForest();
  }

  api.start = start;
  api.forest = forest;
  api.sortables = sortables;
  api.state = function () { return st; };
  return api;
})();
