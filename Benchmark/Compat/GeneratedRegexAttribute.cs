#pragma warning disable IDE0130 // The namespace is the BCL's, so the shared [GeneratedRegex] declaration compiles unchanged.

namespace System.Text.RegularExpressions;

/// <summary>.NET Framework stand-in for .NET 7's attribute: it only carries the pattern (see Base64LineBreaksScenario.Regex.cs).</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false, Inherited = false)]
internal sealed class GeneratedRegexAttribute(string pattern, RegexOptions options) : Attribute
{
    public string Pattern { get; } = pattern;
    public RegexOptions Options { get; } = options;
}
