// Loaded between require.js and embed-amd.js (see nb_ipywidgets_js in _config.yml).
// embed-amd.js defines its modules by name, so require.js places them relative to the page; the
// bundle's webpack code takes its public path (where it finds its icon fonts) from the folder of
// the module's URL, and each of its modules (base, controls, their 7.x twins, the manager) injects
// an @font-face with its own path: the last one injected wins, and which one that is depends on
// timing. Mapping EVERY module name the bundle defines into the vendored folder makes all of them
// resolve the fonts to _static/vendor/html-manager/ (no module is fetched from these paths: the
// bundle has defined them all).
(function () {
  var src = document.currentScript && document.currentScript.src;
  if (!src || typeof window.require === "undefined") {
    return;
  }
  var vendored = src.slice(0, src.lastIndexOf("/") + 1) + "vendor/html-manager";
  var paths = { "@jupyter-widgets/html-manager/dist": vendored };
  ["base", "base7", "controls", "controls7", "html-manager"].forEach(function (name) {
    paths["@jupyter-widgets/" + name] = vendored + "/" + name;
  });
  window.require.config({ paths: paths });
})();
