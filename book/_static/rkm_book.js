// Page fixes of the rkmlearn book (loaded on every page by book/_ext/rkm_book.py).
(function () {
  "use strict";

  // 1. MathJax 2 API for the widget manager. The ipywidgets HTML manager typesets labels with
  //    MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]), the MathJax 2 API; the book loads
  //    MathJax 3, which has no Hub. Calls are collected and typeset with MathJax 3 once it is
  //    ready. This script runs after Sphinx's inline `window.MathJax = {...}` configuration and
  //    before the deferred MathJax script, so the shim is installed on the configuration object
  //    (for calls made before MathJax has loaded) and again on MathJax itself when it is ready.
  if (typeof window.MathJax === "object" && window.MathJax !== null) {
    var pending = [];
    var flush = function () {
      var mj = window.MathJax;
      if (!mj || typeof mj.typesetPromise !== "function" || !pending.length) {
        return;
      }
      var elements = pending.splice(0, pending.length);
      mj.startup.promise = mj.startup.promise
        .then(function () { return mj.typesetPromise(elements); })
        .catch(function (error) { console.warn("MathJax could not typeset a widget label", error); });
    };
    var hub = {
      Queue: function () {
        for (var i = 0; i < arguments.length; i++) {
          var job = arguments[i];
          if (Array.isArray(job) && job[0] === "Typeset" && job[2]) {
            pending.push(job[2]);
          }
        }
        flush();
      },
    };
    var config = window.MathJax;
    config.Hub = hub;
    config.startup = config.startup || {};
    var previousReady = config.startup.ready;
    config.startup.ready = function () {
      if (typeof previousReady === "function") {
        previousReady();
      } else {
        window.MathJax.startup.defaultReady();
      }
      window.MathJax.Hub = hub;
      // The accessibility submenu loads MathJax components the book does not ship (it serves
      // only the files its pages load); hide it rather than offer items that cannot work.
      window.MathJax.startup.promise.then(function () {
        var menu = window.MathJax.startup.document && window.MathJax.startup.document.menu;
        var item = menu && menu.menu && menu.menu.findID && menu.menu.findID("Accessibility");
        if (item && typeof item.hide === "function") {
          item.hide();
        }
        flush();
      });
    };
  }

  // 1b. Typeset value labels of explorer controls. An explorer's Ladder may label its values in
  //     TeX (rkmlearn.widgets._base.tex_label writes them as \(...\)); ipywidgets typesets a
  //     control's description but shows the labels of ToggleButtons and the read-out of a
  //     SelectionSlider as plain text. Typeset them when they appear and whenever a read-out
  //     changes (a slider rewrites its text on every move).
  var pendingLabel = false;
  var typesetLabels = function () {
    pendingLabel = false;
    var found = document.querySelectorAll(".rkm-explorer .rkm-control button, .rkm-explorer .rkm-control .widget-readout");
    var elements = [];
    for (var i = 0; i < found.length; i++) {
      if (found[i].textContent.indexOf("\\(") >= 0 && !found[i].querySelector("mjx-container")) {
        elements.push(found[i]);
      }
    }
    if (elements.length && window.MathJax && window.MathJax.Hub) {
      window.MathJax.Hub.Queue(["Typeset", window.MathJax.Hub, elements[0]]);
      for (var j = 1; j < elements.length; j++) {
        window.MathJax.Hub.Queue(["Typeset", window.MathJax.Hub, elements[j]]);
      }
    }
  };
  var watchLabels = function () {
    if (typeof MutationObserver !== "function") {
      return;
    }
    new MutationObserver(function () {
      if (!pendingLabel) {
        pendingLabel = true;
        window.setTimeout(typesetLabels, 0);
      }
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
  };

  // 2. Sidebar toggles. The theme scripts bind their click handlers to the *first* element with
  //    the class primary-toggle (secondary-toggle), which in this theme sits in a header that is
  //    hidden; the visible buttons did nothing. Forward their clicks to the bound one.
  var forwardToggles = function () {
    ["primary-toggle", "secondary-toggle"].forEach(function (name) {
      var buttons = document.querySelectorAll("." + name);
      for (var i = 1; i < buttons.length; i++) {
        buttons[i].addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          buttons[0].click();
        });
      }
    });
  };
  // 3. Numeric table columns (rkm_book.css right-aligns them): a column whose every non-empty
  //    body cell is a number ("144,000,000", "-0.25", "1.2e-06", "3.4 %", "12 ± 3") gets the
  //    class rkm-num on its cells and its header. Any table: markdown, DataFrame, Styler.
  var NUMBER = /^[-+\u2212]?[$]?(\d[\d,\u2009 ]*(\.\d*)?|\.\d+)(e[-+\u2212]?\d+)?\s*(%|x|\u00d7)?(\s*\u00b1\s*[\d.]+)?$/i;
  var alignNumbers = function () {
    var tables = document.querySelectorAll("main table");
    for (var t = 0; t < tables.length; t++) {
      var rows = tables[t].querySelectorAll("tbody tr");
      var numeric = [], seen = [];
      for (var r = 0; r < rows.length; r++) {
        var cells = rows[r].children;
        for (var c = 0; c < cells.length; c++) {
          var text = cells[c].textContent.trim();
          if (cells[c].tagName === "TH" || !text) { continue; }
          seen[c] = true;
          numeric[c] = (numeric[c] !== false) && NUMBER.test(text);
        }
      }
      var all = tables[t].querySelectorAll("tr");
      for (var a = 0; a < all.length; a++) {
        var row = all[a].children;
        for (var k = 0; k < row.length; k++) {
          if (seen[k] && numeric[k] && !(row[k].tagName === "TH" && all[a].parentElement.tagName === "TBODY")) {
            row[k].classList.add("rkm-num");
          }
        }
      }
    }
  };
  // 4. Legible figures on a phone. Output figures are drawn at 100 dpi with their smallest text
  //    at 10 pt (13.9 px at their nominal width, the width myst-nb writes on the image); shrunk
  //    to a 360 px column that text would be 6 px. Each figure gets a minimum width at which its
  //    text is 9 px, and its parent scrolls (rkm_book.css, .rkm-figure-scroll, phones only).
  var FIGURE_TEXT_PX = 10 * 100 / 72, LEGIBLE_PX = 9;
  var legibleFigures = function () {
    var images = document.querySelectorAll("main div.cell_output img, main figure img");
    var legible = function (img) {
      // the nominal width: myst-nb's width attribute, else half the pixels (drawn at 2x,
      // rkmlearn.widgets.plotting.FIGURE_SCALE)
      var nominal = parseFloat(img.getAttribute("width")) || img.naturalWidth / 2;
      if (!nominal) { return; }
      img.style.setProperty("--rkm-legible-width", Math.ceil(nominal * LEGIBLE_PX / FIGURE_TEXT_PX) + "px");
      img.parentElement.classList.add("rkm-figure-scroll");
    };
    for (var i = 0; i < images.length; i++) {
      if (images[i].closest(".rkm-explorer")) { continue; }
      if (images[i].getAttribute("width") || images[i].complete) { legible(images[i]); }
      else { images[i].addEventListener("load", legible.bind(null, images[i])); }
    }
  };
  // 5. Explorers on a phone: panels stacked. A frame is one picture of several panels side by
  //    side (a heat map, its approximation, the error); shrunk to a 360 px column its text would
  //    be 5 px, and at its own width the key panel is off-screen. Below 700 px the frame's panels
  //    are shown one under the other, each at the column's width, under the controls. Where to
  //    cut each frame was found when the book was built (book/_ext/rkm_panels.py: at its white
  //    gutters, or in bands and then columns) and written into the page (script.rkm-frame-cuts,
  //    keyed by the frame's file name): no pixel is read here. The cut follows the frame shown:
  //    when a control changes it, the panels are cut again. A "grid" cut is used only when every
  //    piece, at the column's width, is shown at least LEGIBLE of its design size (the browser
  //    test's LEGIBLE_FRACTION); else the frame stays whole, in its scroll box.
  var PHONE = window.matchMedia ? window.matchMedia("(max-width: 700px)") : {matches: false};
  var LEGIBLE = 0.72;
  var frameCuts = null;
  var cutOf = function (img) {
    if (!frameCuts) {
      frameCuts = {};
      var scripts = document.querySelectorAll("script.rkm-frame-cuts");
      for (var i = 0; i < scripts.length; i++) {
        try {
          var cuts = JSON.parse(scripts[i].textContent);
          for (var name in cuts) { if (Object.prototype.hasOwnProperty.call(cuts, name)) { frameCuts[name] = cuts[name]; } }
        } catch (error) { /* a page without cuts shows its frames whole */ }
      }
    }
    var file = (img.getAttribute("src") || "").split("?")[0].split("/").pop();
    return frameCuts[file] || null;
  };
  var panelsOf = function (img, column) {
    var cut = cutOf(img);
    if (!cut) { return null; }
    if (cut.rule === "columns") { return cut.pieces; }
    var w = cut.size[0], design = parseFloat(img.style.width) || w / 1.5, widest = column * (w / design) / LEGIBLE;
    for (var i = 0; i < cut.pieces.length; i++) {
      if (cut.pieces[i][2] - cut.pieces[i][0] > widest) { return null; }
    }
    return cut.pieces;
  };
  window.rkmPanelsOf = panelsOf;  // for the browser test and for authors: the cut of a frame
  var shownFrame = function (root) {
    var frames = root.querySelectorAll("img.rkm-frame");
    for (var i = 0; i < frames.length; i++) {
      var visible = frames[i].complete && frames[i].naturalWidth > 0;
      for (var e = frames[i].parentElement; visible && e && e !== root; e = e.parentElement) {
        visible = window.getComputedStyle(e).display !== "none";
      }
      if (visible) { return frames[i]; }
    }
    return null;
  };
  var stackPanels = function (root) {
    var old = root.querySelector(".rkm-panels"), frame = shownFrame(root);
    var all = root.querySelectorAll("img.rkm-frame");
    var panels = PHONE.matches && frame ? panelsOf(frame, root.clientWidth) : null;
    if (old && (!panels || old.dataset.src !== frame.src)) { old.parentNode.removeChild(old); old = null; }
    for (var i = 0; i < all.length; i++) {
      all[i].classList.toggle("rkm-split", !!panels && all[i] === frame);
      // the design width, for the CSS of a frame shown whole on a phone (rkm_book.css)
      var designed = parseFloat(all[i].style.width) || all[i].naturalWidth / 1.5;
      if (designed > 0 && all[i].style.getPropertyValue("--rkm-design") !== designed + "px") {
        all[i].style.setProperty("--rkm-design", designed + "px");  // once: a change would call this again
      }
    }
    if (!panels || old) { return; }
    var box = document.createElement("div");
    box.className = "rkm-panels";
    box.dataset.src = frame.src;
    var w = frame.naturalWidth, h = frame.naturalHeight;
    // frames are drawn at a multiple of their design size (FrameExplorer.scale); a panel is
    // shown at most at its design size, never enlarged past the frame's pixels
    var design = parseFloat(frame.style.width) || w / 1.5, scale = w / design;
    panels.forEach(function (p) {
      var panel = document.createElement("div"), width = p[2] - p[0], height = p[3] - p[1];
      panel.className = "rkm-panel";
      panel.style.aspectRatio = width + " / " + height;
      panel.style.maxWidth = (width / scale) + "px";
      var copy = document.createElement("img");
      copy.src = frame.src;
      copy.alt = frame.alt || "";
      copy.dataset.design = String(design);
      copy.style.width = (100 * w / width) + "%";
      copy.style.marginLeft = (-100 * p[0] / width) + "%";
      // a vertical margin in % is a fraction of the panel's WIDTH too
      if (p[1] > 0) { copy.style.marginTop = (-100 * p[1] / width) + "%"; }
      panel.appendChild(copy);
      box.appendChild(panel);
    });
    frame.parentNode.insertBefore(box, frame.nextSibling);
  };
  var watchExplorers = function () {
    var update = function () {
      var roots = document.querySelectorAll(".rkm-explorer");
      for (var i = 0; i < roots.length; i++) { stackPanels(roots[i]); }
    };
    var pending = false;
    var later = function () {
      if (!pending) { pending = true; window.setTimeout(function () { pending = false; update(); }, 50); }
    };
    if (typeof MutationObserver === "function") {
      new MutationObserver(function (records) {
        for (var i = 0; i < records.length; i++) {
          var target = records[i].target;
          if (target.closest && target.closest(".rkm-explorer") && !target.closest(".rkm-panels")
              && !(target.classList && target.classList.contains("rkm-panels"))) { later(); return; }
        }
      }).observe(document.body, {childList: true, subtree: true, attributes: true,
                                 attributeFilter: ["style", "class", "src"]});
    }
    document.addEventListener("load", function (event) {
      if (event.target && event.target.classList && event.target.classList.contains("rkm-frame")) { later(); }
    }, true);
    if (PHONE.addEventListener) { PHONE.addEventListener("change", later); }
    later();
  };
  var ready = function () {
    forwardToggles();
    watchLabels();
    alignNumbers();
    legibleFigures();
    watchExplorers();
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
