/// The HTML report's inline style sheet and its one small script.
enum HTMLPageAssets {
    static let style = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1240px;padding:0 16px;color:#222;background:#fff}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd}h3{font-size:14px;margin:16px 0 4px;font-weight:600}
        .dim{color:#666}.command code{font-size:12px;word-break:break-all}
        svg.chart{width:100%;height:auto;display:block;user-select:none}
        .plot-bg{fill:#fafafa;stroke:#ccc;vector-effect:non-scaling-stroke}
        .grid{stroke:#e4e4e4;stroke-width:1}.tick{font-size:11px;fill:#555}.legend{font-size:12px;fill:#333}
        .threshold{stroke:#b00;stroke-dasharray:6 4;stroke-width:1;vector-effect:non-scaling-stroke}
        rect.stall{stroke:#222;stroke-width:.5;vector-effect:non-scaling-stroke;cursor:pointer;opacity:.9}rect.stall:hover{opacity:1;stroke-width:2}
        rect.iteration{fill:#bbb;opacity:.45}
        .kind-cpu{fill:#d62728;background:#d62728}.kind-runqueue{fill:#ff7f0e;background:#ff7f0e}.kind-syscall{fill:#1f77b4;background:#1f77b4}
        .kind-sleep{fill:#17becf;background:#17becf}.kind-lock{fill:#9467bd;background:#9467bd}.kind-io{fill:#8c564b;background:#8c564b}
        .kind-unknown{fill:#7f7f7f;background:#7f7f7f}
        .key{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-1px}.key.iteration{background:#ccc}
        polyline.cpu{fill:none;stroke-width:1.5;vector-effect:non-scaling-stroke}rect.alert{fill:#000}
        g.frame rect{stroke:#fff;stroke-width:.5}g.frame text{font-size:11px;fill:#000;pointer-events:none}
        g.frame:hover rect{stroke:#000;stroke-width:1}
        g.app rect{fill:#f2a65a}g.system rect{fill:#9cc3e6}g.folded rect{fill:#ccc}g.root rect{fill:#e6e6e6}
        table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
        th{background:#f4f4f4}td.num{text-align:right;white-space:nowrap}
        li.warning{color:#8a5a00}:target{background:#fff7d6}
        """

    /// Zoom: drag across a time chart to show that range in both, double-click to reset.
    /// Click: a stall's mark goes to its flame graph. `data-ready` tells tests the script ran.
    static let script = """
        (function () {
          var plots = Array.prototype.slice.call(document.querySelectorAll('svg.plot'));
          var full = plots.length ? plots[0].viewBox.baseVal.width : 1, span = document.body.dataset.spanSeconds;
          function zoom(x, width) {
            plots.forEach(function (plot) { var box = plot.viewBox.baseVal; box.x = x; box.width = width; });
            document.getElementById('zoom-range').textContent = width < full ? 'Showing ' + (x / full * span).toFixed(3) + 's to ' + ((x + width) / full * span).toFixed(3) + 's.' : '';
          }
          plots.forEach(function (plot) {
            var chart = plot.ownerSVGElement, start = null;
            function at(event) { var r = plot.getBoundingClientRect(), box = plot.viewBox.baseVal; return box.x + (event.clientX - r.left) / r.width * box.width; }
            chart.addEventListener('mousedown', function (event) { start = at(event); event.preventDefault(); });
            chart.addEventListener('mouseup', function (event) {
              var end = at(event);
              if (start !== null && Math.abs(end - start) > 2) zoom(Math.max(0, Math.min(start, end)), Math.abs(end - start));
              start = null;
            });
            chart.addEventListener('dblclick', function () { zoom(0, full); });
          });
          document.querySelectorAll('rect.stall').forEach(function (mark) {
            mark.addEventListener('click', function () { location.hash = 'stall-' + mark.getAttribute('data-stall'); });
          });
          document.body.setAttribute('data-ready', 'yes');
        })();
        """
}
