/** Version of this plugin; designd compares it with the plugin it ships and asks for a re-import when older. */
export const PLUGIN_VERSION = "0.1.0";
