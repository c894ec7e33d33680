// Stylesheets are bundled by esbuild: importing one adds it to the page's stylesheet.
declare module "*.css";
