"""How the catalog is put on the MCP wire, shared by designd and the hosted service.

A subpackage, so that loading the catalog (which imports every module of ``tools``) never imports the SDK's types:
the workers load the catalog and must stay light.
"""
