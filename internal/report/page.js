// The report's own script: draws every chart from its model (the JSON of
// package internal/chart) with ECharts, and sorts tables. Number formats
// follow internal/chart/units.go: Human (three significant digits, k/M/G,
// KB/MB/GB in decimal units) on axes, Exact (thousands separators) or
// Human for bytes in tooltips.
(function () {
  'use strict';

  var SUFFIX = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  var BYTES = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'];

  function trimZeros(s) {
    if (s.indexOf('.') < 0) return s;
    return s.replace(/0+$/, '').replace(/\.$/, '');
  }

  function scaleOf(v) {
    var i = 0;
    v = Math.abs(v);
    while (v >= 1000 && i < SUFFIX.length - 1) { v /= 1000; i++; }
    return i;
  }

  function thousands(v) {
    var s = trimZeros(Math.abs(v).toFixed(2));
    var parts = s.split('.');
    var int = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return (v < 0 ? '-' : '') + int + (parts.length > 1 ? '.' + parts[1] : '');
  }

  // wholeStep is the spacing of the labelled ticks of a Whole axis as the
  // Go model sets them (every depth when they fit), for ECharts' interval;
  // undefined (ECharts' own) with fewer than two labels.
  function wholeStep(ticks) {
    var v = (ticks || []).filter(function (t) { return t.label; }).map(function (t) { return t.value; });
    var step;
    for (var i = 1; i < v.length; i++) if (step === undefined || v[i] - v[i - 1] < step) step = v[i] - v[i - 1];
    return step;
  }

  // human is chart.Human.
  function human(v, unit) {
    if (unit === 'count' || unit === 'bytes') {
      var i = scaleOf(v);
      var x = v / Math.pow(1000, i);
      if (Math.abs(x) >= 999.5 && i < SUFFIX.length - 1) { i++; x /= 1000; }
      var a = Math.abs(x), d = 2;
      if (i === 0 && a === Math.trunc(a)) d = 0;
      else if (a >= 99.95) d = 0;
      else if (a >= 9.995) d = 1;
      var s = trimZeros(x.toFixed(d));
      return unit === 'bytes' ? s + ' ' + BYTES[i] : s + SUFFIX[i];
    }
    if (unit === 'percent') return trimZeros((v * 100).toFixed(1)) + '%';
    if (unit === 'year' || unit === 'whole') return String(Math.round(v));
    return trimZeros(v.toFixed(3));
  }

  // exact is chart.Exact.
  function exact(v, unit) {
    if (unit === 'count') return thousands(v);
    if (unit === 'bytes') return v === 1 ? '1 byte' : thousands(v) + ' bytes';
    if (unit === 'percent') return trimZeros((v * 100).toFixed(2)) + '%';
    if (unit === 'year' || unit === 'whole') return String(Math.round(v));
    return trimZeros(v.toFixed(6));
  }

  // shown is the value a tooltip shows: bytes in human units, the rest exact.
  function shown(v, unit) {
    return unit === 'bytes' ? human(v, unit) : exact(v, unit);
  }

  function pad2(n) { return n < 10 ? '0' + n : String(n); }
  function isoDay(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad2(d.getUTCMonth() + 1) + '-' + pad2(d.getUTCDate());
  }
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  function dateTick(ms) {
    var d = new Date(ms);
    if (d.getUTCMonth() === 0 && d.getUTCDate() === 1) return String(d.getUTCFullYear());
    if (d.getUTCDate() === 1) return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear();
    return isoDay(ms);
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  function row(marker, name, value) {
    return '<div class="mk-row"><span>' + marker + esc(name) + '</span><span class="mk-val">' + esc(value) + '</span></div>';
  }

  // lineData turns a series' points into ECharts data: [x, y] pairs (x in
  // milliseconds on a time axis), a null after every point followed by a
  // gap, and a visible symbol on the points the model marks (marked: their
  // indexes, chart.PointMarks: a point alone, a run too short to read as a
  // line, every point of a short series).
  function lineData(points, gap, time, marked, log) {
    var out = [], m = {};
    (marked || []).forEach(function (j) { m[j] = true; });
    for (var i = 0; i < points.length; i++) {
      var p = points[i];
      var x = time ? p.x * 1000 : p.x;
      var y = log && p.y <= 0 ? null : p.y;
      var before = i > 0 && (!gap || p.x - points[i - 1].x <= gap);
      if (i > 0 && !before) out.push([time ? (points[i - 1].x + gap) * 1000 : points[i - 1].x + gap, null]);
      if (m[i]) out.push({ value: [x, y], symbolSize: 6 });
      else out.push([x, y]);
    }
    return out;
  }

  function axisName(label) {
    return { name: label, nameLocation: 'middle' };
  }

  function option(spec, width) {
    var c = spec.chart, colors = spec.colors, unit = c.y.unit;
    var many = c.series.length > 1 && c.kind !== 'treemap';
    var longest = 0;
    c.series.forEach(function (s) { longest = Math.max(longest, s.name.length); });
    var legendWidth = many ? Math.min(Math.max(100, 44 + 7.5 * longest), Math.round(width * 0.3)) : 0;
    var opt = {
      color: colors,
      animation: false,
      textStyle: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif' },
      tooltip: { className: 'mk-tooltip', confine: true },
      grid: { left: 78, right: 20 + legendWidth, top: 16, bottom: 44 },
    };
    if (many) {
      opt.legend = {
        type: 'scroll', orient: 'vertical', right: 4, top: 8, width: legendWidth - 8,
        itemWidth: 14, itemHeight: 10, textStyle: { width: legendWidth - 34, overflow: 'truncate' },
        data: c.series.map(function (s) { return s.name; })
      };
      if (c.kind === 'stacked-bar') opt.legend.data = opt.legend.data.slice().reverse(); // top down, as the stack reads
    }
    if (c.kind === 'treemap') {
      var s = c.series[0], total = 0;
      s.values.forEach(function (v) { total += v; });
      opt.tooltip.trigger = 'item';
      opt.tooltip.formatter = function (p) {
        return '<b>' + esc(p.name) + '</b>' + row('', c.y.label, shown(p.value, unit)) + row('', 'share', (100 * p.value / total).toFixed(1) + '%');
      };
      opt.series = [{
        type: 'treemap', roam: false, nodeClick: false, breadcrumb: { show: false },
        left: 0, right: 0, top: 0, bottom: 0, squareRatio: 1,
        itemStyle: { borderColor: '#fff', borderWidth: 2, gapWidth: 2 },
        label: {
          show: true, position: 'insideTopLeft', fontSize: 13, lineHeight: 18,
          formatter: function (p) { return '{b|' + p.name + '}\n' + shown(p.value, unit) + '\n' + (100 * p.value / total).toFixed(1) + '%'; },
          rich: { b: { fontWeight: 'bold', fontSize: 14 } }
        },
        data: c.categories.map(function (name, j) { return { name: name, value: s.values[j], itemStyle: { color: colors[j] } }; })
      }];
      return opt;
    }
    var log = c.y.type === 'log';
    opt.yAxis = Object.assign(axisName(c.y.label), {
      type: log ? 'log' : 'value', logBase: 10, nameGap: 60,
      minInterval: unit === 'count' || unit === 'bytes' ? 1 : undefined, // no half captures
      min: log ? c.y.min : undefined,
      // A share axis ends where the model's does (100 %), not at ECharts' next step.
      max: log || (unit === 'percent' && c.y.max <= 1) ? c.y.max : undefined,
      axisLabel: { formatter: function (v) { return human(v, unit); } },
      splitLine: { lineStyle: { color: '#e3e3e3' } }
    });
    var header = function (x) { return String(x); };
    if (c.kind === 'line') {
      var time = c.x.type === 'time', whole = c.x.unit === 'year' || c.x.unit === 'whole';
      opt.xAxis = Object.assign(axisName(c.x.label), {
        type: time ? 'time' : c.x.type === 'log' ? 'log' : 'value', logBase: 10, nameGap: 28,
        min: time ? c.x.min * 1000 : c.x.min, max: time ? c.x.max * 1000 : c.x.max,
        minInterval: whole ? 1 : undefined,
        interval: c.x.unit === 'whole' ? wholeStep(c.x.ticks) : undefined,
        axisLabel: { hideOverlap: true, formatter: time ? dateTick : function (v) { return whole ? (v === Math.round(v) ? String(v) : '') : human(v, c.x.unit); } },
        splitLine: { show: false }
      });
      header = time ? function (x) { return isoDay(x); } : function (x) { return whole ? String(x) : human(x, c.x.unit); };
      opt.series = c.series.map(function (s, i) {
        var marked = (spec.marks || [])[i] || [];
        return {
          name: s.name, type: 'line', data: lineData(s.points, c.gap, time, marked, log),
          showSymbol: true, symbol: 'circle', symbolSize: marked.length === s.points.length ? 6 : 0, connectNulls: false,
          itemStyle: { color: colors[i] }, lineStyle: { width: 1.6, color: colors[i] }
        };
      });
      opt.series.reverse(); // the first (largest) series drawn last, on top
      if (spec.zoom) { // along a time or count axis only (chart.Chart.Zoomable)
        opt.dataZoom = [
          { type: 'inside', xAxisIndex: 0, filterMode: 'none' },
          { type: 'slider', xAxisIndex: 0, filterMode: 'none', height: 20, bottom: 6, labelFormatter: time ? function (v) { return isoDay(v); } : undefined }
        ];
        opt.grid.bottom = 78;
      }
      opt.xAxis.nameGap = 26;
    } else {
      opt.xAxis = Object.assign(axisName(c.x.label), {
        type: 'category', data: c.categories, nameGap: 28, axisTick: { alignWithLabel: true },
        axisLabel: { hideOverlap: true }
      });
      header = function (x) { return x; };
      opt.series = c.series.map(function (s, i) {
        return {
          name: s.name, type: 'bar', itemStyle: { color: colors[i] }, stack: c.kind === 'stacked-bar' ? 'all' : undefined,
          data: s.values.map(function (v) { return log && v <= 0 ? null : v; }),
          barMaxWidth: 60, emphasis: { focus: 'series' }
        };
      });
    }
    opt.tooltip.trigger = 'axis';
    opt.tooltip.axisPointer = { type: c.kind === 'line' ? 'line' : 'shadow' };
    opt.tooltip.formatter = function (params) {
      if (!params.length) return '';
      var x = Array.isArray(params[0].value) ? params[0].value[0] : params[0].name;
      var html = '<b>' + esc(header(x)) + '</b>';
      var sum = 0, n = 0;
      var ps = params.slice();
      if (c.kind === 'line') ps.reverse(); // back to legend order
      if (c.kind === 'stacked-bar') ps.reverse(); // top down, as the stack reads
      ps.forEach(function (p) {
        var v = Array.isArray(p.value) ? p.value[1] : p.value;
        if (v === null || v === undefined) return;
        sum += v; n++;
        html += row(p.marker, p.seriesName, shown(v, unit));
      });
      if (c.kind === 'stacked-bar' && n > 1) html += row('', 'total', shown(sum, unit));
      return html;
    };
    return opt;
  }

  function draw() {
    var charts = [];
    document.querySelectorAll('figure.chart-box').forEach(function (fig) {
      var el = fig.querySelector('.chart');
      var spec = JSON.parse(fig.querySelector('script.chart-spec').textContent);
      spec.chart.series.forEach(function (s) { // empty lists are left out of the JSON
        s.points = s.points || [];
        s.values = s.values || [];
      });
      spec.chart.categories = spec.chart.categories || [];
      var inst = echarts.init(el, null, { renderer: 'canvas' });
      inst.setOption(option(spec, el.clientWidth));
      el.setAttribute('data-rendered', String(spec.chart.series.length));
      charts.push(inst);
    });
    window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
  }

  function sortable(table) {
    var heads = table.querySelectorAll('thead th');
    heads.forEach(function (th, col) {
      th.querySelector('button').addEventListener('click', function () {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        heads.forEach(function (h) { h.setAttribute('aria-sort', 'none'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var num = th.classList.contains('num');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute('data-sort'), y = b.cells[col].getAttribute('data-sort');
          var d;
          if (num) {
            var px = parseFloat(x), py = parseFloat(y);
            d = px < py ? -1 : px > py ? 1 : 0;
          } else {
            d = x.localeCompare(y);
          }
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  document.querySelectorAll('table.sortable').forEach(sortable);
  draw();
  document.body.setAttribute('data-ready', 'true');
}());
