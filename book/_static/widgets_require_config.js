// Loaded between require.js and embed-amd.js (see nb_ipywidgets_js in _config.yml).
// embed-amd.js defines its modules by name, so require.js would place them relative to the page;
// webpack inside the bundle then looks for its icon fonts next to the *page*. Mapping the bundle's
// module path to the vendored folder makes the fonts resolve to _static/vendor/html-manager/.
(function () {
  var src = document.currentScript && document.currentScript.src;
  if (!src || typeof window.require === "undefined") {
    return;
  }
  var staticDir = src.slice(0, src.lastIndexOf("/") + 1);
  window.require.config({
    paths: { "@jupyter-widgets/html-manager/dist": staticDir + "vendor/html-manager" },
  });
})();
