/* structsim-nb page script: sortable, filterable, paged tables with expandable rows, built from JSON
   embedded in the page (no network, no library). structsim_nb/page.py writes the data; this file draws it.
   Every table is registered in window.ssTables[id] so links (and tests) can drive it. */
(function () {
  "use strict";

  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) { return ESC[c]; });
  }
  function isBlank(v) { return v === null || v === undefined || (typeof v === "number" && isNaN(v)); }
  function cssName(v) { return String(v).toLowerCase().replace(/[^a-z0-9]+/g, "-"); }

  // Score colour: light red (0) -> light amber (0.5) -> light green (1). page.py's score_colour is the same.
  var STOPS = [[0, [248, 208, 200]], [0.5, [251, 231, 181]], [1, [221, 241, 228]]];
  function scoreColour(x) {
    x = Math.max(0, Math.min(1, x));
    var lo = x <= 0.5 ? STOPS[0] : STOPS[1], hi = x <= 0.5 ? STOPS[1] : STOPS[2];
    var t = (x - lo[0]) / (hi[0] - lo[0]);
    var rgb = lo[1].map(function (a, i) { return Math.round(a + (hi[1][i] - a) * t); });
    return "rgb(" + rgb.join(",") + ")";
  }

  function compactJson(v) {
    var text = JSON.stringify(v);
    return text === undefined ? "" : text;
  }

  function cell(column, value, row, columns) {
    var kind = column.kind, cls = [], body, title = "", style = "";
    if (isBlank(value)) {
      body = kind === "json" ? '<code class="ss-muted">null</code>' : "";
    } else if (kind === "integer") {
      cls.push("num"); body = esc(Math.round(value).toLocaleString("en-US"));
    } else if (kind === "number") {
      cls.push("num"); body = esc(Number(value).toFixed(column.digits));
    } else if (kind === "percent") {
      cls.push("num"); body = esc((100 * value).toFixed(1) + "%");
    } else if (kind === "score") {
      cls.push("num"); body = esc(Number(value).toFixed(column.digits));
      style = "background:" + scoreColour(Number(value));
    } else if (kind === "pass") {
      body = value ? '<span class="ss-badge pass">pass</span>' : '<span class="ss-badge fail">fail</span>';
    } else if (kind === "badge") {
      body = '<span class="ss-badge ' + cssName(value) + '">' + esc(value) + "</span>";
    } else if (kind === "json") {
      var text = compactJson(value);
      cls.push("json");
      if (text.length > 160) { title = text; text = text.slice(0, 157) + "\u2026"; }
      body = "<code>" + esc(text) + "</code>";
    } else if (kind === "path") {
      body = "<code>" + esc(value) + "</code>";
    } else if (kind === "link") {
      body = '<a href="#" data-ss-filter="' + esc(JSON.stringify(value.target)) + '">' + esc(value.text) + "</a>";
    } else {
      cls.push(column.wrap === false ? "nowrap" : "wrap"); body = esc(value);
    }
    if (column.indentBy) {
      var depth = row[columns.indexOf(column.indentBy)] || 0;
      if (depth) cls.push("ss-depth-" + Math.min(depth, 2));
    }
    return "<td" + (cls.length ? ' class="' + cls.join(" ") + '"' : "") + (style ? ' style="' + style + '"' : "") +
      (title ? ' title="' + esc(title) + '"' : "") + ">" + body + "</td>";
  }

  // A document (truth or prediction) as indented JSON, each line knowing its path; marked paths highlighted.
  // page.py's json_html draws the same lines with the same paths.
  function renderJson(value, marks) {
    marks = marks || {};
    if (typeof value === "string") return '<pre class="ss-text">' + esc(value) + "</pre>";
    var out = [];
    function scalar(v) {
      if (v === null) return '<span class="z">null</span>';
      if (typeof v === "string") return '<span class="s">' + esc(JSON.stringify(v)) + "</span>";
      return '<span class="n">' + esc(JSON.stringify(v)) + "</span>";
    }
    function tag(kind) { return kind ? '<span class="tag">' + esc(kind) + "</span>" : ""; }
    function node(v, path, key, depth, last) {
      var pad = new Array(depth + 1).join("  ");
      var label = key === null ? "" : '<span class="k">' + esc(JSON.stringify(key)) + "</span>: ";
      var comma = last ? "" : ",";
      var kind = path ? marks[path] : undefined;
      var markCls = kind ? " m-" + cssName(kind) : "";
      var markTitle = kind ? ' title="' + esc(kind) + '"' : "";
      var isList = Array.isArray(v), isObj = v !== null && typeof v === "object" && !isList;
      var keys = isObj ? Object.keys(v) : null;
      if ((isList && v.length) || (isObj && keys.length)) {
        out.push('<div class="b' + markCls + '"' + markTitle + ' data-path="' + esc(path) + '">');
        out.push('<div class="l">' + pad + label + (isList ? "[" : "{") + tag(kind) + "</div>");
        if (isList) {
          v.forEach(function (item, i) { node(item, path + "[" + i + "]", null, depth + 1, i === v.length - 1); });
        } else {
          keys.forEach(function (k, i) { node(v[k], path ? path + "." + k : k, k, depth + 1, i === keys.length - 1); });
        }
        out.push('<div class="l">' + pad + (isList ? "]" : "}") + comma + "</div></div>");
      } else {
        var text = isList ? "[]" : isObj ? "{}" : scalar(v);
        out.push('<div class="l' + markCls + '"' + markTitle + ' data-path="' + esc(path) + '">' + pad + label + text +
          comma + tag(kind) + "</div>");
      }
    }
    node(value, "", null, 0, true);
    return '<div class="ss-json">' + out.join("") + "</div>";
  }

  function smallTable(spec) {
    var head = spec.columns.map(function (c) { return "<th>" + esc(c) + "</th>"; }).join("");
    var body = spec.rows.map(function (r) {
      return "<tr>" + r.map(function (v, i) {
        var kind = spec.kinds ? spec.kinds[i] : "text";
        return cell({ kind: kind, digits: 3 }, v, r, []);
      }).join("") + "</tr>";
    }).join("");
    return "<div><h4>" + esc(spec.title) + "</h4><table><thead><tr>" + head + "</tr></thead><tbody>" +
      (body || '<tr><td colspan="' + spec.columns.length + '" class="ss-muted">none</td></tr>') + "</tbody></table></div>";
  }

  function renderDetail(detail) {
    var html = [];
    if (detail.reason) html.push('<p class="ss-reason"><b>Reason:</b> ' + esc(detail.reason) + "</p>");
    if (detail.panes && detail.panes.length) {
      html.push('<div class="ss-panes">');
      detail.panes.forEach(function (pane) {
        html.push('<div class="ss-pane" data-pane="' + esc(pane.title) + '"><h4>' + esc(pane.title) + "</h4>" +
          renderJson(pane.value, pane.marks) + "</div>");
      });
      html.push("</div>");
    }
    if (detail.tables && detail.tables.length) {
      html.push('<div class="ss-detail-tables">' + detail.tables.map(smallTable).join("") + "</div>");
    }
    return html.join("");
  }

  function compare(a, b) {
    var ab = isBlank(a), bb = isBlank(b);
    if (ab || bb) return ab === bb ? 0 : ab ? 1 : -1;  // blanks last, both directions (see sortRows)
    if (typeof a === "number" && typeof b === "number") return a - b;
    if (typeof a === "boolean" && typeof b === "boolean") return (a ? 1 : 0) - (b ? 1 : 0);
    if (typeof a === "object") a = compactJson(a);
    if (typeof b === "object") b = compactJson(b);
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  function searchable(column, value) {
    if (isBlank(value)) return "";
    if (column.kind === "pass") return value ? "pass" : "fail";
    if (column.kind === "link") return value.text;
    return typeof value === "object" ? compactJson(value) : String(value);
  }

  // The bin of [0, 1] a score falls in, as structsim_nb/plot/bins.py's bin_index counts it: closed on the left (the
  // last bin on both sides), out-of-range scores in the end bins, a blank or infinite one (JSON's null) at 0.
  function scoreBin(value, bins) {
    var x = isBlank(value) ? 0 : Number(value);
    x = isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
    return Math.min(bins - 1, Math.max(0, Math.floor(x * bins + 1e-9)));
  }
  function sameRange(a, b) {
    return !!a && !!b && a.table === b.table && a.column === b.column && a.bin === b.bin && a.bins === b.bins;
  }

  function Table(root) {
    var data = JSON.parse(document.getElementById(root.getAttribute("data-source")).textContent);
    var self = this, columns = data.columns, keys = columns.map(function (c) { return c.key; });
    var visible = columns.filter(function (c) { return !c.hidden; });
    var order = data.rows.map(function (_, i) { return i; });
    var state = { sortKey: null, sortDir: null, text: "", selects: {}, range: null, shown: data.pageSize, expanded: {} };
    var haystack = null;
    this.id = root.id;
    this.data = data;

    function build() {
      var controls = ['<div class="ss-controls">',
        '<input type="search" placeholder="Filter rows\u2026" aria-label="Filter rows" class="ss-filter">'];
      columns.forEach(function (c) {
        if (!c.filter) return;
        var counts = {};
        data.rows.forEach(function (r) {
          var v = searchable(c, r[keys.indexOf(c.key)]);
          counts[v] = (counts[v] || 0) + 1;
        });
        var values = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || compare(a, b); });
        controls.push('<label>' + esc(c.label) + ' <select data-column="' + esc(c.key) + '"><option value="">all</option>' +
          values.map(function (v) {
            return '<option value="' + esc(v) + '">' + esc(v === "" ? "(blank)" : v) + " (" + counts[v] + ")</option>";
          }).join("") + "</select></label>");
      });
      controls.push('<span class="ss-range" hidden><span class="ss-range-text"></span><button type="button" ' +
        'class="ss-range-clear" title="show every score" aria-label="show every score">\u2715</button></span>');
      controls.push("</div>");
      var head = visible.map(function (c) {
        var label = c.help ? '<abbr title="' + esc(c.help) + '">' + esc(c.label) + "</abbr>" : esc(c.label);
        var numeric = ["integer", "number", "score", "percent"].indexOf(c.kind) >= 0;
        return '<th scope="col" data-key="' + esc(c.key) + '"' + (numeric ? ' class="num"' : "") +
          ' aria-sort="none"><button class="ss-sort" type="button">' + label + "</button></th>";
      }).join("");
      root.innerHTML = controls.join("") + '<div class="ss-scroll"><table class="ss-grid"><thead><tr>' + head +
        '</tr></thead><tbody></tbody></table></div><div class="ss-footer"><span class="ss-count"></span>' +
        '<button type="button" class="ss-more">Show more</button><button type="button" class="ss-all">Show all</button></div>';
      root.querySelector(".ss-filter").addEventListener("input", function (e) {
        state.text = e.target.value.trim().toLowerCase(); state.shown = data.pageSize; render();
      });
      root.querySelectorAll("select[data-column]").forEach(function (sel) {
        sel.addEventListener("change", function () {
          state.selects[sel.getAttribute("data-column")] = sel.value; state.shown = data.pageSize; render();
        });
      });
      root.querySelectorAll("th button.ss-sort").forEach(function (button) {
        button.addEventListener("click", function () { self.sortBy(button.parentNode.getAttribute("data-key")); });
      });
      root.querySelector(".ss-range-clear").addEventListener("click", function () {
        var bar = ownBars().filter(function (b) { return b.getAttribute("aria-pressed") === "true"; })[0];
        self.filterRange(null);
        (bar || root.querySelector(".ss-filter")).focus();  // the chip is gone: focus where the filter came from
      });
      root.querySelector(".ss-more").addEventListener("click", function () { state.shown += data.pageSize; render(); });
      root.querySelector(".ss-all").addEventListener("click", function () { state.shown = Infinity; render(); });
      root.querySelector("tbody").addEventListener("click", function (e) {
        var button = e.target.closest("button.ss-expand");
        if (!button) return;
        var index = Number(button.getAttribute("data-row"));
        if (state.expanded[index]) delete state.expanded[index]; else state.expanded[index] = true;
        render();
      });
    }

    // A wide table scrolls sideways; its detail rows stay as wide as the visible part and in view.
    function fitDetails() {
      var scroller = root.querySelector(".ss-scroll");
      root.style.setProperty("--ss-view", Math.max(300, scroller.clientWidth - 26) + "px");
    }
    window.addEventListener("resize", fitDetails);

    function matching() {
      if (haystack === null) {
        haystack = data.rows.map(function (r) {
          return visible.map(function (c) { return searchable(c, r[keys.indexOf(c.key)]); }).join("\u0001").toLowerCase();
        });
      }
      var selects = Object.keys(state.selects).filter(function (k) { return state.selects[k] !== ""; });
      return order.filter(function (i) {
        if (state.text && haystack[i].indexOf(state.text) < 0) return false;
        if (state.range) {
          var range = state.range, row = data.rows[i];
          if (scoreBin(row[range.col], range.target.bins) !== range.target.bin) return false;
          if (range.statusCol >= 0 && range.target.statuses.indexOf(row[range.statusCol]) < 0) return false;
        }
        for (var s = 0; s < selects.length; s++) {
          var c = columns[keys.indexOf(selects[s])];
          if (searchable(c, data.rows[i][keys.indexOf(c.key)]) !== state.selects[selects[s]]) return false;
        }
        return true;
      });
    }

    function render() {
      var rows = matching(), shown = rows.slice(0, state.shown), html = [];
      var first = visible[0];
      shown.forEach(function (i) {
        var r = data.rows[i], detail = data.details ? data.details[i] : null;
        var cells = visible.map(function (c) { return cell(c, r[keys.indexOf(c.key)], r, keys); });
        if (detail) {
          var open = !!state.expanded[i];
          cells[0] = cells[0].replace(/^<td([^>]*)>/, '<td$1><button type="button" class="ss-expand" data-row="' + i +
            '" aria-expanded="' + open + '" title="' + (open ? "hide" : "show") + ' truth and prediction">' +
            (open ? "\u25BE" : "\u25B8") + "</button>");
        }
        html.push('<tr class="ss-row" data-row="' + i + '">' + cells.join("") + "</tr>");
        if (detail && state.expanded[i]) {
          html.push('<tr class="ss-detail" data-row="' + i + '"><td colspan="' + visible.length + '">' +
            '<div class="ss-detail-body">' + renderDetail(detail) + "</div></td></tr>");
        }
      });
      if (!shown.length) {
        html.push('<tr><td class="ss-empty" colspan="' + visible.length + '">' + esc(data.empty || "No rows match.") +
          "</td></tr>");
      }
      root.querySelector("tbody").innerHTML = html.join("");
      fitDetails();
      var noun = rows.length === 1 ? data.noun[0] : data.noun[1];
      root.querySelector(".ss-count").textContent = "Showing " + shown.length.toLocaleString("en-US") + " of " +
        rows.length.toLocaleString("en-US") + " " + noun + (rows.length !== data.rows.length ?
          " matching (" + data.rows.length.toLocaleString("en-US") + " in all)" : "");
      var left = rows.length - shown.length;
      var more = root.querySelector(".ss-more"), all = root.querySelector(".ss-all");
      more.hidden = left <= 0;
      more.textContent = "Show " + Math.min(left, data.pageSize) + " more";
      all.hidden = left <= data.pageSize || rows.length > data.showAllLimit;
      all.textContent = "Show all " + rows.length.toLocaleString("en-US");
      root.querySelectorAll("thead th").forEach(function (th) {
        var key = th.getAttribute("data-key");
        th.setAttribute("aria-sort", key === state.sortKey ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
      });
    }

    // Click cycle: ascending, descending, back to the page's own order (worst first).
    this.sortBy = function (key, direction) {
      if (direction === undefined) {
        direction = state.sortKey !== key ? 1 : state.sortDir > 0 ? -1 : 0;
      }
      var col = keys.indexOf(key);
      order = data.rows.map(function (_, i) { return i; });
      if (direction) {
        order.sort(function (a, b) {
          var va = data.rows[a][col], vb = data.rows[b][col];
          if (isBlank(va) || isBlank(vb)) return compare(va, vb) || a - b;
          return direction * compare(va, vb) || a - b;
        });
      }
      state.sortKey = direction ? key : null; state.sortDir = direction;
      render();
    };
    this.filterBy = function (column, value) {
      var sel = root.querySelector('select[data-column="' + column + '"]');
      if (sel) sel.value = value;
      state.selects[column] = value; state.shown = data.pageSize; render();
    };
    // The histogram bars on the page that filter this table (other tables' bars are theirs to mark).
    function ownBars() {
      return Array.prototype.filter.call(document.querySelectorAll("[data-ss-range]"), function (button) {
        return JSON.parse(button.getAttribute("data-ss-range")).table === root.id;
      });
    }
    // Only the rows whose score falls in bin `target.bin` of `target.bins` (as the page's histogram counts them), and
    // whose `target.statusColumn` is one of `target.statuses` when both are given and the table has that column;
    // null: every row. `target` is a histogram bar's data-ss-range.
    this.filterRange = function (target) {
      var chip = root.querySelector(".ss-range");
      var col = target ? keys.indexOf(target.column) : -1;
      state.range = col < 0 ? null : {
        target: target, col: col,
        statusCol: target.statuses && target.statusColumn ? keys.indexOf(target.statusColumn) : -1
      };
      chip.hidden = !state.range;
      if (state.range) {
        var bin = target.bin, bins = target.bins;
        chip.querySelector(".ss-range-text").textContent = columns[col].label + " " + (bin / bins).toFixed(2) + " to " +
          ((bin + 1) / bins).toFixed(2) + (bin === bins - 1 ? " (both included)" : "");
      }
      ownBars().forEach(function (button) {
        var own = JSON.parse(button.getAttribute("data-ss-range"));
        button.setAttribute("aria-pressed", String(!!state.range && sameRange(own, target)));
      });
      state.shown = data.pageSize; render();
    };
    this.range = function () { return state.range && state.range.target; };
    this.search = function (text) {
      root.querySelector(".ss-filter").value = text;
      state.text = text.trim().toLowerCase(); state.shown = data.pageSize; render();
    };
    this.visibleRows = function () {
      return Array.prototype.map.call(root.querySelectorAll("tbody tr.ss-row"), function (tr) {
        return Number(tr.getAttribute("data-row"));
      });
    };
    build();
    render();
  }

  function start() {
    window.ssTables = window.ssTables || {};
    document.querySelectorAll(".ss-table[data-source]").forEach(function (root) {
      window.ssTables[root.id] = new Table(root);
    });
    document.addEventListener("click", function (e) {
      var bar = e.target.closest("[data-ss-range]");
      if (bar) {
        var range = JSON.parse(bar.getAttribute("data-ss-range")), shown = window.ssTables[range.table];
        if (!shown) return;
        shown.filterRange(sameRange(shown.range(), range) ? null : range);  // a second click: every row again
        return;
      }
      var link = e.target.closest("a[data-ss-filter]");
      if (!link) return;
      e.preventDefault();
      var target = JSON.parse(link.getAttribute("data-ss-filter"));
      var table = window.ssTables[target.table];
      if (!table) return;
      table.filterBy(target.column, target.value);
      document.getElementById(target.table).scrollIntoView({ behavior: "smooth", block: "start" });
    });
  }

  window.ssRenderJson = renderJson;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
