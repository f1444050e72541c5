// .NET Framework (net472) only: the static KeyValuePair.Create of .NET Core 2.0+.
#pragma warning disable IDE0130 // The namespace is the BCL's, so call sites read the same on both targets.

namespace System.Collections.Generic;

internal static class KeyValuePair
{
    public static KeyValuePair<TKey, TValue> Create<TKey, TValue>(TKey key, TValue value) => new(key, value);
}
