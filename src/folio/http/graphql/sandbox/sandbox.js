// Starts the GraphQL sandbox (GraphiQL) on the endpoint named by the page.
(function () {
  "use strict";
  var root = document.getElementById("sandbox");
  var endpoint = root.getAttribute("data-endpoint");
  var fetcher = GraphiQL.createFetcher({ url: endpoint });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
    })
  );
})();
