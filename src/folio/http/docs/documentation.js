// Shows the API's OpenAPI document (served by this server) with Swagger UI.
(function () {
  "use strict";
  var root = document.getElementById("documentation");
  root.textContent = "";
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec"),
    domNode: root,
    deepLinking: true,
    // no request to the public validator service
    validatorUrl: null,
    persistAuthorization: true,
  });
})();
