"""Variable writes: create, update, rename, delete variables, collections and modes, in batches or one by one.

Every call is one undo step in the design tool. Values are written as people write them: colours as hex or
``rgb()``/``rgba()``, aliases as ``VariableID:…`` or DTCG braces (``{color.blue.500}``); the plugin checks each value
against the variable's type before it changes anything, and the batch tools are all or nothing. A batch of thousands
is one call: the plugin works through it in slices, reporting progress and giving the design tool its thread back
between slices, and a cancel between slices takes back what the call had written.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.errors import DesignError, ErrorCode
from design_console.tools.base import Args, write_tool

#: Largest batch the batch tools take in one call (one undo step, one round trip): 5,000 variables in 4 modes are a
#: command of about 1 MB, and the plugin's MAX_BATCH is the same.
MAX_BATCH = 5000
#: Largest token set design_setup_design_tokens creates in one call.
MAX_TOKENS = 500

Value = str | float | bool
ResolvedType = Literal["COLOR", "FLOAT", "STRING", "BOOLEAN"]
Name = Annotated[str, Meta(min_length=1, max_length=255)]
Id = Annotated[str, Meta(min_length=1, max_length=200)]


class UpdateVariableArgs(Args):
    variableId: Id
    modeId: Id | None = None
    value: Value | None = None
    description: Annotated[str, Meta(max_length=5000)] | None = None


def _update_params(args: UpdateVariableArgs) -> dict[str, Any]:
    """Value and description go in one command, so one undo step reverts both."""
    if args.value is None and args.description is None:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "Nothing to update.", "Pass value (with modeId) and/or description.")
    params: dict[str, Any] = msgspec.to_builtins(args)
    return params


write_tool(
    "design_update_variable",
    "Set a variable's value in one mode (default: first) and/or description.",
    UpdateVariableArgs,
    idempotent=True,
    params=_update_params,
)


class CreateVariableArgs(Args):
    name: Name
    collectionId: Id
    resolvedType: ResolvedType
    description: Annotated[str, Meta(max_length=5000)] | None = None
    valuesByMode: dict[str, Value] | None = None


write_tool(
    "design_create_variable",
    "Create a variable in a collection, values per modeId.",
    CreateVariableArgs,
)


class CreateCollectionArgs(Args):
    name: Name
    initialModeName: Name | None = None
    additionalModes: Annotated[list[Name], Meta(max_length=40)] | None = None


write_tool(
    "design_create_variable_collection",
    "Create a variable collection with its modes.",
    CreateCollectionArgs,
)


class VariableIdArgs(Args):
    variableId: Id


write_tool(
    "design_delete_variable",
    "Delete a variable; returns what recreating it needs.",
    VariableIdArgs,
    destructive=True,
)


class CollectionIdArgs(Args):
    collectionId: Id


write_tool(
    "design_delete_variable_collection",
    "Delete a collection and all its variables.",
    CollectionIdArgs,
    destructive=True,
)


class RenameVariableArgs(Args):
    variableId: Id
    newName: Name


write_tool(
    "design_rename_variable",
    "Rename a variable (slashes make groups).",
    RenameVariableArgs,
    idempotent=True,
)


class AddModeArgs(Args):
    collectionId: Id
    modeName: Name


write_tool("design_add_mode", "Add a mode to a collection.", AddModeArgs)


class RenameModeArgs(Args):
    collectionId: Id
    modeId: Id
    newName: Name


write_tool("design_rename_mode", "Rename a mode.", RenameModeArgs, idempotent=True)


class NewVariable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    name: Name
    resolvedType: ResolvedType
    description: str | None = None
    valuesByMode: dict[str, Value] | None = None


class BatchCreateArgs(Args):
    collectionId: Id
    variables: Annotated[list[NewVariable], Meta(min_length=1, max_length=MAX_BATCH)]


write_tool(
    "design_batch_create_variables",
    f"Create up to {MAX_BATCH} variables in a collection, all or none.",
    BatchCreateArgs,
)


class VariableUpdate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    variableId: Id
    modeId: Id
    value: Value


class BatchUpdateArgs(Args):
    updates: Annotated[list[VariableUpdate], Meta(min_length=1, max_length=MAX_BATCH)]


write_tool(
    "design_batch_update_variables",
    f"Set up to {MAX_BATCH} variable values, all or none.",
    BatchUpdateArgs,
    idempotent=True,
)


class BatchDeleteArgs(Args):
    variableIds: Annotated[list[Id], Meta(min_length=1, max_length=MAX_BATCH)]


write_tool(
    "design_batch_delete_variables",
    f"Delete up to {MAX_BATCH} variables, all or none.",
    BatchDeleteArgs,
    destructive=True,
)


class Token(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    name: Name
    resolvedType: ResolvedType
    description: str | None = None
    values: dict[str, Value]


class SetupTokensArgs(Args):
    collectionName: Name
    modes: Annotated[list[Name], Meta(min_length=1, max_length=40)]
    tokens: Annotated[list[Token], Meta(min_length=1, max_length=MAX_TOKENS)]


write_tool(
    "design_setup_design_tokens",
    "Create a collection with modes and tokens (values by mode name; {a.b} aliases), all or none.",
    SetupTokensArgs,
)
