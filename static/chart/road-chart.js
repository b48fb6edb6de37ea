/* Road to Attention: draws the app's plotly figures (ui/plot.py sends them), with
 * the app's plotly.js build loaded beside this file (static/vendor/).
 *
 * What st.plotly_chart did, kept: Streamlit 1.67's theme merged into each figure's template
 * (THEME: the values its frontend merges for this app's light theme and fonts, read from a
 * chart it drew; titles bold), plotly's config with Streamlit's defaults (no logo, no
 * lasso/box select, no cloud button), the figure's own height (else 450 px) and the
 * container's width, followed as the container or the window changes.
 * The figure's margins come pre-computed (charts/screen/margins.py) for exactly this. */
(function () {
  "use strict";
  const THEME = {
    "font": {
      "color": "#808495",
      "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
      "size": 12,
      "weight": 400
    },
    "title": {
      "color": "#2F2D2B",
      "subtitleColor": "#2F2D2B",
      "font": {
        "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
        "size": 16,
        "color": "#2F2D2B"
      },
      "pad": {
        "l": 4
      },
      "xanchor": "left",
      "x": 0
    },
    "legend": {
      "title": {
        "font": {
          "size": 12,
          "color": "#808495"
        },
        "side": "top"
      },
      "valign": "top",
      "bordercolor": "transparent",
      "borderwidth": 0,
      "font": {
        "size": 12,
        "color": "#262730"
      }
    },
    "paper_bgcolor": "#FFFFFF",
    "plot_bgcolor": "#FFFFFF",
    "yaxis": {
      "ticklabelposition": "outside",
      "zerolinecolor": "#e6eaf1",
      "title": {
        "font": {
          "color": "#808495",
          "size": 14
        },
        "standoff": 24
      },
      "tickcolor": "#e6eaf1",
      "tickfont": {
        "color": "#808495",
        "size": 12
      },
      "gridcolor": "#e6eaf1",
      "minor": {
        "gridcolor": "#e6eaf1"
      },
      "automargin": true
    },
    "xaxis": {
      "zerolinecolor": "#e6eaf1",
      "gridcolor": "#e6eaf1",
      "showgrid": false,
      "tickfont": {
        "color": "#808495",
        "size": 12
      },
      "tickcolor": "#e6eaf1",
      "title": {
        "font": {
          "color": "#808495",
          "size": 14
        },
        "standoff": 20
      },
      "minor": {
        "gridcolor": "#e6eaf1"
      },
      "zeroline": false,
      "automargin": true,
      "rangeselector": {
        "bgcolor": "#FFFFFF",
        "bordercolor": "#e6eaf1",
        "borderwidth": 1,
        "x": 0
      }
    },
    "margin": {
      "pad": 8,
      "r": 0,
      "l": 0
    },
    "hoverlabel": {
      "bgcolor": "#FFFFFF",
      "bordercolor": "#DCD8D4",
      "font": {
        "color": "#808495",
        "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
        "size": 12
      }
    },
    "coloraxis": {
      "colorbar": {
        "thickness": 16,
        "xpad": 24,
        "ticklabelposition": "outside",
        "outlinecolor": "transparent",
        "outlinewidth": 8,
        "len": 0.75,
        "y": 0.5745,
        "title": {
          "font": {
            "color": "#808495",
            "size": 14
          }
        },
        "tickfont": {
          "color": "#808495",
          "size": 12
        }
      }
    },
    "ternary": {
      "gridcolor": "#808495",
      "bgcolor": "#FFFFFF",
      "title": {
        "font": {
          "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
          "size": 14
        }
      },
      "color": "#808495",
      "aaxis": {
        "gridcolor": "#808495",
        "linecolor": "#808495",
        "tickfont": {
          "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
          "size": 12
        }
      },
      "baxis": {
        "linecolor": "#808495",
        "gridcolor": "#808495",
        "tickfont": {
          "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
          "size": 12
        }
      },
      "caxis": {
        "linecolor": "#808495",
        "gridcolor": "#808495",
        "tickfont": {
          "family": "sans-serif, 'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei', \"Source Sans\", sans-serif",
          "size": 12
        }
      }
    }
  };
  const HEIGHT = 450; // px, Streamlit's height for a figure without one of its own
  const MIN_WIDTH = 150; // px, Streamlit's narrowest chart

  const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

  // lodash.merge, as Streamlit applies its theme: objects merge, anything else replaces
  function merge(into, from) {
    for (const [k, v] of Object.entries(from)) {
      if (isObject(v)) {
        if (!isObject(into[k])) into[k] = {};
        merge(into[k], v);
      } else if (v !== undefined) {
        into[k] = v;
      }
    }
    return into;
  }

  function themed(fig) {
    const layout = isObject(fig.layout) ? fig.layout : (fig.layout = {});
    const template = isObject(layout.template) ? layout.template : (layout.template = {});
    template.layout = merge(isObject(template.layout) ? template.layout : {}, THEME);
    if (layout.title !== undefined && layout.title !== null) {
      const title = typeof layout.title === "string" ? { text: layout.title } : layout.title;
      const text = typeof title.text === "string" ? title.text : "";
      layout.title = Object.assign({}, title, { text: "<b>" + text + "</b>" });
    }
    return fig;
  }

  function configured(config) {
    const out = Object.assign({ displaylogo: false, showSendToCloud: false }, config);
    const off = Array.isArray(out.modeBarButtonsToRemove) ? [...out.modeBarButtonsToRemove] : [];
    for (const b of ["lasso2d", "select2d", "sendChartToCloud"]) if (!off.includes(b)) off.push(b);
    out.modeBarButtonsToRemove = off;
    return out;
  }

  const widthOf = (box) => Math.max(Math.floor(box.getBoundingClientRect().width), MIN_WIDTH);

  // one observer for every chart: a new width redraws that chart at it, once per frame
  const resized = new ResizeObserver((entries) => {
    for (const e of entries) {
      const box = e.target;
      const gd = box.firstElementChild;
      // a box out of the page or folded to nothing for a moment (a part replacing another,
      // the window resized mid-rerun): no redraw at the 150 px floor, where a chart set up
      // for its real width has no room left between its margins (plotly then computes
      // -Infinity positions); its next real width redraws it
      if (!box.isConnected || box.getBoundingClientRect().width < 1) continue;
      const width = widthOf(box);
      if (!gd || !gd._fullLayout || gd._fullLayout.width === width) continue;
      window.Plotly.relayout(gd, { width: width });
    }
  });

  // The chart's text alternative (a visually hidden description, then its data as a table
  // in a closed <details>), right after the chart: built and escaped by the server
  // (charts/describe.py alternative_html); replaced only when it changes, so a table a
  // student opened stays open while the chart redraws the same data. The table enters the
  // page when its fold is first opened: a closed fold's table (up to 2,000 cells, a 256 x 33
  // map's) was parsed into the page again on every click that redrew the chart.
  const SUMMARY_END = "</summary>";
  function describe(parent, box, alt) {
    let holder = parent.querySelector(":scope > .road-chart-alt");
    if (!holder) {
      holder = document.createElement("div");
      holder.className = "road-chart-alt";
      box.after(holder);
    }
    if (holder.roadAlt === alt) return;
    holder.roadAlt = alt;
    const text = alt || "";
    const cut = text.indexOf(SUMMARY_END), end = text.lastIndexOf("</details>");
    if (cut < 0 || end < cut) {
      holder.innerHTML = text;
      return;
    }
    const at = cut + SUMMARY_END.length;
    holder.innerHTML = text.slice(0, at) + text.slice(end);
    const fold = holder.querySelector("details");
    const tables = text.slice(at, end);
    fold.addEventListener("toggle", () => {
      if (fold.open && !fold.roadFilled) {
        fold.roadFilled = true;
        fold.insertAdjacentHTML("beforeend", tables);
      }
    });
  }

  // ui/plot.py gives the element the chart's room (a fixed height and flex basis, scrolling
  // past it) before anything here has loaded, so that nothing under it moves when it draws;
  // now that the box holds the figure's height and its fold, the element follows its content
  // again exactly as an element of Streamlit's own height does (a data table opened under the
  // chart grows it, a taller figure on a rerun too)
  function release(box) {
    const element = box.closest('[data-testid="stElementContainer"]');
    if (element && element.style.height !== "auto") {
      element.style.height = "auto";
      element.style.flex = "0 1 auto";
      element.style.overflow = "visible";
    }
  }

  /** Draw ``payload`` (UTF-8 JSON bytes: {"alt": html, "spec": figure, "config": plotly
   * config}) into ``parent``; a second call with new bytes updates the same chart
   * (Plotly.react). */
  function draw(parent, payload) {
    const text = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
    const box = parent.querySelector(".stPlotlyChart"); // ui/plot.py's html
    if (box.roadText === text) return; // the same figure again: nothing to do
    const { alt, spec, config } = JSON.parse(text);
    describe(box.parentElement, box, alt);
    const fig = themed(spec);
    const height = fig.layout.height >= 10 ? fig.layout.height : HEIGHT;
    if (!box.firstElementChild) {
      box.appendChild(document.createElement("div"));
      resized.observe(box);
    }
    box.style.minHeight = height + "px";
    release(box);
    box.roadText = text;
    // One drawing at a time per chart, the newest figure last: a figure that arrives while
    // the previous one is still being drawn (a live chart redrawn every 2 s on a busy
    // phone, plotly.js's extra pass below) waits for it, and one that a newer figure
    // overtook while it waited is skipped, so two Plotly.react calls never interleave.
    const run = () => {
      if (box.roadText !== text) return undefined;
      const gd = box.firstElementChild;
      gd.style.overflow = "hidden";
      fig.layout.width = widthOf(box);
      fig.layout.height = height;
      const before = margins(gd);
      return window.Plotly.react(gd, fig.data || [], fig.layout, configured(config || {})).then(
        (gd) => (gd._fullLayout.title || {}).automargin && margins(gd) !== before ? redraw(gd) : gd
      );
    };
    box.roadDrawing = (box.roadDrawing || Promise.resolve()).then(run, run);
    return box.roadDrawing;
  }

  // plotly.js 4.1.1 lays out a title that pushes the top margin after it has placed the
  // traces and the legend, which then stay where the smaller margin put them (plotly.js
  // #7750; Streamlit's 4.2.0 draws right): one more pass, with the margin known, draws
  // them where the axes are. Measured on rnn_gradients in presenter mode: pixel-identical
  // to st.plotly_chart's drawing with it, 30,182 pixels of the screen off without it.
  // A redraw whose margins come out as the chart's last drawing left them placed everything
  // with those margins already: no second pass (its SVG came out identical in 24 of 24 such
  // reruns on rnn_gradients and compression in presenter mode), half the drawing a click.
  const margins = (gd) => (gd._fullLayout ? JSON.stringify(gd._fullLayout._size) : "");
  function redraw(gd) {
    const layout = Object.assign({}, gd.layout, { datarevision: (gd.layout.datarevision || 0) + 1 });
    return window.Plotly.react(gd, gd.data, layout);
  }

  window.RoadChart = { draw: draw };
})();
