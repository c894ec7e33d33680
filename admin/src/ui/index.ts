// The shared components, in one import: `import { Button, Field, Dialog } from "../ui";`
export { Button, IconButton, LinkButton, buttonClass, type Variant } from "./button";
export { Field, FieldError, FieldHint, SelectField, TextField, controlProps, type FieldA11y } from "./field";
export { ConfirmDialog, Dialog, focusables, type ConfirmDialogProps, type DialogProps } from "./dialog";
export { Menu, Popover, type MenuItem } from "./menu";
export { Tabs, type Tab } from "./tabs";
export { Pagination, pageWindow } from "./pagination";
export { Badge, StatusBadge, statusText, type Status } from "./badge";
export { EmptyState, ErrorState, Spinner } from "./spinner";
export { PageHeader, useDocumentTitle } from "./page";
export { notify, dismiss, Notifications, type Tone } from "./notify";
export { formatDate, formatDateTime, formatValue, relativeTime } from "./format";
