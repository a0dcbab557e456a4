/// The HTML pages' inline style sheet and their small scripts (the flame graphs' in
/// HTMLPageAssets+Flame.swift).
enum HTMLPageAssets {
    static let style = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1800px;padding:0 16px;color:#222;background:#fff}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd}h3{font-size:14px;margin:16px 0 4px;font-weight:600;overflow-wrap:anywhere}
        .dim{color:#666}.command code{font-size:12px;word-break:break-all}
        svg.chart{width:100%;display:block;user-select:none}svg.time-chart{height:auto}svg.time-chart .plot{cursor:crosshair}
        .plot-bg{fill:#fafafa;stroke:#ccc}
        .grid{stroke:#e4e4e4;stroke-width:1}.tick{font-size:11px;fill:#555}.legend{font-size:12px;color:#333}
        .threshold{stroke:#b00;stroke-dasharray:6 4;stroke-width:1}.selection{fill:#1f77b4;opacity:.15}
        rect.stall{stroke:#222;stroke-width:.5;cursor:pointer;opacity:.9}rect.stall:hover{opacity:1;stroke-width:2}
        rect.iteration{fill:#bbb;opacity:.45}
        .kind-cpu{fill:#d62728;background:#d62728}.kind-runqueue{fill:#ff7f0e;background:#ff7f0e}.kind-syscall{fill:#1f77b4;background:#1f77b4}
        .kind-sleep{fill:#17becf;background:#17becf}.kind-lock{fill:#9467bd;background:#9467bd}.kind-io{fill:#8c564b;background:#8c564b}
        .kind-unknown{fill:#7f7f7f;background:#7f7f7f}
        .key{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-1px}.key.iteration{background:#ccc}
        .thread-key{display:inline-block;white-space:nowrap;margin-right:8px}
        polyline.cpu{fill:none;stroke-width:1.5}rect.alert{fill:#000;stroke:#fff;stroke-width:1}
        svg.frame{cursor:pointer;outline:none}svg.frame rect{stroke:#fff;stroke-width:1}svg.frame text{font-size:11px;fill:#000;pointer-events:none}
        svg.frame:hover rect{stroke:#000;stroke-width:1}svg.frame:focus rect{stroke:#000;stroke-width:2}
        svg.app rect{fill:#f2a65a}svg.system rect{fill:#9cc3e6}svg.folded rect{fill:#ccc}svg.root rect{fill:#e6e6e6}
        svg.frame.match rect{fill:#e600e6 !important}svg.frame.ancestor rect{opacity:.55}
        .key.app{background:#f2a65a}.key.system{background:#9cc3e6}.key.folded{background:#ccc}.key.grew{background:#ff4848}.key.shrank{background:#4848ff}.key.same{background:#e0e0e0}
        .flame-tools{margin:6px 0;font-size:13px}.flame-search{font:inherit;padding:2px 6px;width:20em;max-width:55%}.flame-reset{font:inherit}.flame-status{color:#444;margin-left:8px}
        ul.stall-list{margin:4px 0;padding-left:20px;font-size:13px}
        table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
        th{background:#f4f4f4}td.num{text-align:right;white-space:nowrap}td.culprit,td.diagnosis,td code{overflow-wrap:anywhere}
        details{margin:8px 0}summary{cursor:pointer;color:#1f4f8f}
        li.warning{color:#8a5a00}:target{background:#fff7d6}
        """

    /// Lays the time charts out in CSS pixels for the page's width (text keeps its size) and for
    /// the shown range: drag across a time chart to zoom both, double-click to reset; the axis is
    /// redrawn for the range and marks are placed from their times (`data-t0`, `data-t1`,
    /// `data-t`), so nothing is stretched. Click: a stall's mark goes to its flame graph (opening
    /// a collapsed list).
    static let timeScript = """
        (function () {
          var ns = 'http://www.w3.org/2000/svg', span = +document.body.dataset.spanSeconds || 1e-9;
          var view = { t0: 0, t1: span };
          var charts = Array.prototype.slice.call(document.querySelectorAll('svg.time-chart'));
          function attr(el, name, value) { el.setAttribute(name, +value.toFixed(2)); }
          function geometry(svg) {
            var d = svg.dataset, width = Math.max(200, svg.parentNode.clientWidth);
            var left = +d.plotLeft, plotWidth = width - left - +d.plotRight;
            return { width: width, left: left, top: +d.top, height: +d.plotHeight, plotWidth: plotWidth,
              x: function (t) { return (t - view.t0) / (view.t1 - view.t0) * plotWidth; } };
          }
          function ticks(g) {
            var raw = (view.t1 - view.t0) / Math.max(2, Math.floor(g.plotWidth / 110));
            var step = Math.pow(10, Math.floor(Math.log10(raw)));
            for (var f of [1, 2, 5, 10]) { if (step * f >= raw * (1 - 1e-9)) { step *= f; break; } }
            var digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)), list = [];
            for (var i = Math.ceil(view.t0 / step - 1e-9); i * step <= view.t1 + step * 1e-9; i++) list.push(i * step);
            return list.map(function (t) { return { t: t, label: t.toFixed(digits) + 's' }; });
          }
          function drawAxis(svg, g) {
            var axis = svg.querySelector('g.axis');
            while (axis.firstChild) axis.removeChild(axis.firstChild);
            ticks(g).forEach(function (tick) {
              var x = g.x(tick.t), line = document.createElementNS(ns, 'line'), text = document.createElementNS(ns, 'text');
              line.setAttribute('class', 'grid');
              attr(line, 'x1', g.left + x); attr(line, 'x2', g.left + x);
              attr(line, 'y1', g.top); attr(line, 'y2', g.top + g.height + 4);
              text.setAttribute('class', 'tick');
              attr(text, 'x', g.left + x); attr(text, 'y', g.top + g.height + 18);
              text.setAttribute('text-anchor', x < 20 ? 'start' : g.plotWidth - x < 20 ? 'end' : 'middle');
              text.textContent = tick.label;
              axis.appendChild(line); axis.appendChild(text);
            });
          }
          function layout() {
            charts.forEach(function (svg) {
              var g = geometry(svg), plot = svg.querySelector('svg.plot');
              svg.setAttribute('viewBox', '0 0 ' + g.width + ' ' + (g.top + g.height + 28));
              attr(plot, 'width', g.plotWidth);
              plot.querySelectorAll('.span').forEach(function (el) { attr(el, el.tagName === 'line' ? 'x2' : 'width', g.plotWidth); });
              plot.querySelectorAll('rect[data-t0]').forEach(function (mark) {
                var x0 = g.x(+mark.dataset.t0), x1 = g.x(+mark.dataset.t1);
                attr(mark, 'x', x0); attr(mark, 'width', Math.max(x1 - x0, +mark.dataset.min));
              });
              plot.querySelectorAll('rect[data-t]').forEach(function (mark) {
                attr(mark, 'x', g.x(+mark.dataset.t) - mark.width.baseVal.value / 2);
              });
              plot.querySelectorAll('polyline[data-t]').forEach(function (line) {
                var times = line.dataset.t.split(' '), points = line.points;
                for (var i = 0; i < points.numberOfItems && i < times.length; i++) points.getItem(i).x = g.x(+times[i]);
              });
              drawAxis(svg, g);
            });
            var range = document.getElementById('zoom-range');
            if (range) range.textContent = view.t1 - view.t0 < span ? 'Showing ' + view.t0.toFixed(3) + 's to ' + view.t1.toFixed(3) + 's.' : '';
          }
          charts.forEach(function (svg) {
            var plot = svg.querySelector('svg.plot'), area = plot.querySelector('.plot-bg'), start = null, band = null;
            function at(event) {
              var r = area.getBoundingClientRect(), f = Math.min(1, Math.max(0, (event.clientX - r.left) / r.width));
              return { x: f * r.width, t: view.t0 + f * (view.t1 - view.t0) };
            }
            plot.addEventListener('mousedown', function (event) {
              start = at(event); event.preventDefault();
              band = document.createElementNS(ns, 'rect'); band.setAttribute('class', 'selection');
              attr(band, 'x', start.x); band.setAttribute('y', 0); band.setAttribute('width', 0); band.setAttribute('height', '100%');
              plot.appendChild(band);
            });
            window.addEventListener('mousemove', function (event) {
              if (start === null) return;
              var end = at(event);
              attr(band, 'x', Math.min(start.x, end.x)); attr(band, 'width', Math.abs(end.x - start.x));
            });
            window.addEventListener('mouseup', function (event) {
              if (start === null) return;
              var end = at(event);
              if (band) plot.removeChild(band);
              if (Math.abs(end.x - start.x) > 3) { view = { t0: Math.min(start.t, end.t), t1: Math.max(start.t, end.t) }; layout(); }
              start = null; band = null;
            });
            plot.addEventListener('dblclick', function () { view = { t0: 0, t1: span }; layout(); });
          });
          function reveal(id) {
            var target = document.getElementById(id);
            for (var el = target; el; el = el.parentElement) if (el.tagName === 'DETAILS') el.open = true;
            return target;
          }
          document.querySelectorAll('rect.stall').forEach(function (mark) {
            mark.addEventListener('click', function () { reveal('stall-' + mark.getAttribute('data-stall')); location.hash = 'stall-' + mark.getAttribute('data-stall'); });
          });
          document.querySelectorAll('a[href^="#stall-"]').forEach(function (link) {
            link.addEventListener('click', function () { reveal(link.getAttribute('href').slice(1)); });
          });
          if (location.hash.length > 1) { var shown = reveal(location.hash.slice(1)); if (shown) shown.scrollIntoView(); }
          window.addEventListener('resize', layout);
          layout();
        })();
        """
}
