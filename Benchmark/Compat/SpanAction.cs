#pragma warning disable IDE0130 // The namespace is the BCL's, so string.Create's callback type reads the same on both targets.

namespace System.Buffers;

/// <summary>.NET Core 2.1's callback type for string.Create, absent from .NET Framework and its System.Memory package.</summary>
internal delegate void SpanAction<T, in TArg>(Span<T> span, TArg arg);
