// .NET Framework (net472) only: brings the extension-member shims into scope everywhere, as the BCL members are on .NET 10.
global using EtwSerializerProfiler.Compat;
