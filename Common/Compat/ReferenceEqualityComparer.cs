// .NET Framework (net472) only: .NET 5's ReferenceEqualityComparer (identity, not Equals).
#pragma warning disable IDE0130 // The namespace is the BCL's, so call sites read the same on both targets.

using System.Runtime.CompilerServices;

namespace System.Collections.Generic;

internal sealed class ReferenceEqualityComparer : IEqualityComparer<object?>
{
    public static ReferenceEqualityComparer Instance { get; } = new();

    private ReferenceEqualityComparer() { }

    public new bool Equals(object? x, object? y) => ReferenceEquals(x, y);

    public int GetHashCode(object? obj) => RuntimeHelpers.GetHashCode(obj!);
}
